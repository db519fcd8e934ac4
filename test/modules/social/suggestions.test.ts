import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

let t: TestApp;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
  alice = await newUser(t.app);
  bob = await newUser(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

function suggest(user: TestUser, payload: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: '/api/market-suggestions',
    headers: bearer(user.token),
    payload: { title: 'Will India win the next Test?', category: 'Cricket', options: ['Yes'], ...payload },
  });
}

function review(id: string, verb: 'approve' | 'reject', payload: Record<string, unknown>, user = admin) {
  return t.app.inject({
    method: 'POST',
    url: `/api/admin/market-suggestions/${id}/${verb}`,
    headers: bearer(user.token),
    payload,
  });
}

async function notificationsOf(user: TestUser) {
  const res = await t.app.inject({ url: '/api/me/notifications', headers: bearer(user.token) });
  return res.json().data as { type: string; body: string; data: Record<string, string> }[];
}

describe('market suggestions', () => {
  it('stores a suggestion for review and lists it to its author only', async () => {
    const res = await suggest(alice, {
      description: 'Five-day match',
      options: ['India', 'England', 'Draw'],
      resolutionSource: 'https://www.espncricinfo.com',
      closesAt: inAWeek(),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      title: 'Will India win the next Test?',
      category: 'cricket',
      options: ['India', 'England', 'Draw'],
      status: 'pending',
      eventId: null,
      eventSlug: null,
      eventStatus: null,
      suggestedBy: { id: alice.id, username: alice.username },
    });
    const mine = await t.app.inject({ url: '/api/market-suggestions', headers: bearer(alice.token) });
    expect(mine.json().data.map((s: { id: string }) => s.id)).toContain(res.json().id);
    const theirs = await t.app.inject({ url: '/api/market-suggestions', headers: bearer(bob.token) });
    expect(theirs.json().data).toEqual([]);
    expect((await t.app.inject({ url: '/api/market-suggestions' })).statusCode).toBe(401);
  });

  it.each([
    [{ title: '   ' }, 'body.title'],
    [{ options: [] }, 'body.options'],
    [{ options: ['Yes', 'yes'] }, 'body.options'],
    [{ options: ['Yes', ' '] }, 'body.options.1'],
    [{ closesAt: '2001-01-01T00:00:00Z' }, 'body.closesAt'],
    [{ closesAt: 'tomorrow' }, 'body.closesAt'],
    [{ category: '' }, 'body.category'],
    [{ unknown: true }, 'body.unknown'],
  ])('rejects %j with a 400 naming the field', async (payload, field) => {
    const res = await suggest(bob, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('caps the suggestions waiting for review per user (409 TOO_MANY_PENDING_SUGGESTIONS)', async () => {
    const busy = await newUser(t.app);
    for (let i = 0; i < 10; i += 1)
      expect((await suggest(busy, { title: `Idea ${i}` })).statusCode).toBe(201);
    const over = await suggest(busy, { title: 'One too many' });
    expect(over.statusCode).toBe(409);
    expect(over.json().code).toBe('TOO_MANY_PENDING_SUGGESTIONS');
  });

  it('lets admins list all suggestions by status; others get 403', async () => {
    const created = (await suggest(bob, { title: 'Will the monsoon arrive early?' })).json();
    const list = await t.app.inject({
      url: '/api/admin/market-suggestions?status=pending&limit=200',
      headers: bearer(admin.token),
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((s: { id: string }) => s.id)).toContain(created.id);
    const forbidden = await t.app.inject({
      url: '/api/admin/market-suggestions',
      headers: bearer(bob.token),
    });
    expect(forbidden.statusCode).toBe(403);
    expect((await review(created.id, 'approve', {}, bob)).statusCode).toBe(403);
  });

  it('approves into a draft event with options and escrow accounts, and notifies the suggester', async () => {
    const created = (
      await suggest(alice, { title: 'Will Sensex close above 80,000?', options: ['Yes', 'No change'] })
    ).json();
    const noClose = await review(created.id, 'approve', {});
    expect(noClose.statusCode).toBe(400);
    expect(noClose.json().details[0].field).toBe('body.closesAt');

    const res = await review(created.id, 'approve', { closesAt: inAWeek() });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'approved', eventSlug: 'will-sensex-close-above-80-000' });

    const event = await t.database.db
      .selectFrom('events')
      .selectAll()
      .where('slug', '=', 'will-sensex-close-above-80-000')
      .executeTakeFirstOrThrow();
    expect(res.json()).toMatchObject({ eventId: String(event.id), eventStatus: 'draft' });
    expect(event).toMatchObject({
      status: 'draft',
      title: 'Will Sensex close above 80,000?',
      category: 'cricket',
    });
    const options = await t.database.db
      .selectFrom('options')
      .leftJoin('ledger_accounts', (join) =>
        join.onRef('ledger_accounts.option_id', '=', 'options.id').on('ledger_accounts.kind', '=', 'escrow'),
      )
      .select(['options.label', 'ledger_accounts.id as escrow', 'ledger_accounts.balance'])
      .where('options.event_id', '=', event.id)
      .orderBy('options.sort_order')
      .execute();
    expect(options.map((o) => o.label)).toEqual(['Yes', 'No change']);
    expect(options.every((o) => o.escrow !== null && o.balance === 0)).toBe(true);

    const approved = (await notificationsOf(alice)).find((n) => n.type === 'suggestion.approved');
    expect(approved?.data).toEqual({ suggestionId: created.id, eventSlug: 'will-sensex-close-above-80-000' });

    const again = await review(created.id, 'approve', { closesAt: inAWeek() });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('SUGGESTION_NOT_PENDING');
  });

  it('gives a taken title a fresh slug and refuses a taken explicit slug (409 SLUG_TAKEN)', async () => {
    const a = (await suggest(bob, { title: 'Same title', closesAt: inAWeek() })).json();
    const b = (await suggest(bob, { title: 'Same title', closesAt: inAWeek() })).json();
    expect((await review(a.id, 'approve', {})).json().eventSlug).toBe('same-title');
    const clash = await review(b.id, 'approve', { slug: 'same-title' });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().code).toBe('SLUG_TAKEN');
    expect((await review(b.id, 'approve', {})).json().eventSlug).toMatch(/^same-title-[0-9a-f]{6}$/);
  });

  it('rejects with a reason the suggester is told', async () => {
    const created = (await suggest(alice, { title: 'Will it snow in Chennai?' })).json();
    expect((await review(created.id, 'reject', { reason: '  ' })).statusCode).toBe(400);
    const res = await review(created.id, 'reject', { reason: 'Cannot be resolved objectively' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'rejected',
      rejectionReason: 'Cannot be resolved objectively',
    });
    const rejected = (await notificationsOf(alice)).find((n) => n.type === 'suggestion.rejected');
    expect(rejected?.data).toEqual({ suggestionId: created.id, reason: 'Cannot be resolved objectively' });
    const again = await review(created.id, 'reject', { reason: 'again' });
    expect(again.statusCode).toBe(409);
    expect((await review('999999', 'reject', { reason: 'x' })).statusCode).toBe(404);
    const mine = await t.app.inject({
      url: '/api/market-suggestions?status=rejected',
      headers: bearer(alice.token),
    });
    expect(mine.json().data.map((s: { id: string }) => s.id)).toEqual([created.id]);
  });
});
