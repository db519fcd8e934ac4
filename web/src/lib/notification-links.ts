/** Where a notification leads: the market, challenge, tournament, trader or page it is about. */

type Data = Record<string, unknown>;

function text(data: Data, key: string): string | null {
  const value = data[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

export function notificationLink(type: string, data: Data): { to: string; label: string } | null {
  const order = (data.order ?? null) as Data | null;
  const eventSlug = text(data, 'eventSlug') ?? (order ? text(order, 'eventSlug') : null);
  if (type.startsWith('suggestion.')) return { to: '/suggest', label: 'See your suggestions' };
  if (type.startsWith('challenge.')) {
    const code = text(data, 'code');
    return code ? { to: `/challenges/${encodeURIComponent(code)}`, label: 'Open the challenge' } : null;
  }
  if (type === 'tournament.prize') {
    const slug = text(data, 'tournamentSlug');
    return slug ? { to: `/tournaments/${encodeURIComponent(slug)}`, label: 'Open the tournament' } : null;
  }
  if (type === 'social.follow') {
    const username = text(data, 'username');
    return username ? { to: `/users/${encodeURIComponent(username)}`, label: 'See their profile' } : null;
  }
  if (type === 'badge.earned') return { to: '/progress', label: 'See your badges' };
  if (type.startsWith('copy.')) return { to: '/copy-trading', label: 'See your copies' };
  if (type === 'referral.rewarded') return { to: '/account', label: 'See your invite link' };
  if (eventSlug) return { to: `/markets/${encodeURIComponent(eventSlug)}`, label: 'Open the market' };
  return null;
}
