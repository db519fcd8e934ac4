import { describe, expect, it } from 'vitest';
import { notificationLink } from './notification-links';

describe('where a notification leads', () => {
  it('to the market it is about, the order’s market included', () => {
    expect(notificationLink('market.settled', { eventSlug: 'ipl' })?.to).toBe('/markets/ipl');
    expect(notificationLink('social.like', { postId: '3', eventSlug: 'odi' })?.to).toBe('/markets/odi');
    expect(notificationLink('order.cancelled', { order: { eventSlug: 'rbi' } })?.to).toBe('/markets/rbi');
  });

  it('to the challenge, tournament, trader or page it is about', () => {
    expect(notificationLink('challenge.invited', { code: 'AB12' })?.to).toBe('/challenges/AB12');
    expect(notificationLink('tournament.prize', { tournamentSlug: 'cup' })?.to).toBe('/tournaments/cup');
    expect(notificationLink('social.follow', { username: 'asha_k' })?.to).toBe('/users/asha_k');
    expect(notificationLink('suggestion.approved', { eventSlug: 'draft-one' })?.to).toBe('/suggest');
    expect(notificationLink('badge.earned', {})?.to).toBe('/progress');
  });

  it('nowhere when it is about nothing that has a page', () => {
    expect(notificationLink('social.content_hidden', { targetType: 'POST', targetId: '1' })).toBeNull();
  });
});
