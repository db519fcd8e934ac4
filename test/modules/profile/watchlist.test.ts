import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const add = (user: TestUser, payload: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/api/watchlist',
    headers: bearer(user.token),
    payload: payload as object,
  });
const list = (user: TestUser, query = '') =>
  t.app.inject({ url: `/api/watchlist${query}`, headers: bearer(user.token) });
const remove = (user: TestUser, ref: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/watchlist/${ref}`, headers: bearer(user.token) });

describe('watchlist', () => {
  it('needs authentication', async () => {
    expect((await t.app.inject({ url: '/api/watchlist' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/watchlist', payload: { eventId: '1' } })).statusCode,
    ).toBe(401);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/watchlist/1' })).statusCode).toBe(401);
  });

  it('adds by slug or id, is idempotent, and lists newest first', async () => {
    const user = await newUser(t.app);
    const first = await insertEvent(t.database, { title: 'Toss winner' });
    const second = await insertEvent(t.database, { title: 'Top scorer' });

    const added = await add(user, { eventSlug: first.slug });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({
      eventId: String(first.id),
      eventSlug: first.slug,
      title: 'Toss winner',
      status: 'open',
    });
    const again = await add(user, { eventId: String(first.id) });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(added.json());
    expect((await add(user, { eventId: String(second.id) })).statusCode).toBe(201);

    const body = (await list(user)).json();
    expect(body.data.map((i: { eventSlug: string }) => i.eventSlug)).toEqual([second.slug, first.slug]);
    expect(body.nextCursor).toBeNull();
  });

  it('keeps one entry when the same market is added concurrently', async () => {
    const user = await newUser(t.app);
    const event = await insertEvent(t.database);
    const results = await Promise.all([1, 2, 3].map(() => add(user, { eventSlug: event.slug })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 201]);
    expect((await list(user)).json().data).toHaveLength(1);
  });

  it('is paginated', async () => {
    const user = await newUser(t.app);
    for (let i = 0; i < 3; i++) await add(user, { eventId: String((await insertEvent(t.database)).id) });
    const page1 = (await list(user, '?limit=2')).json();
    expect(page1.data).toHaveLength(2);
    const page2 = (await list(user, `?limit=2&cursor=${page1.nextCursor}`)).json();
    expect(page2.data).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();
  });

  it('removes by id or slug, harmlessly when absent', async () => {
    const user = await newUser(t.app);
    const a = await insertEvent(t.database);
    const b = await insertEvent(t.database);
    await add(user, { eventId: String(a.id) });
    await add(user, { eventId: String(b.id) });
    expect((await remove(user, String(a.id))).statusCode).toBe(204);
    expect((await remove(user, b.slug)).statusCode).toBe(204);
    expect((await remove(user, b.slug)).statusCode).toBe(204);
    expect((await list(user)).json().data).toEqual([]);
  });

  it.each([
    [{}, 'body.eventSlug'],
    [{ eventSlug: 'a', eventId: '1' }, 'body.eventId'],
    [{ eventId: 'abc' }, 'body.eventId'],
    [{ eventSlug: '' }, 'body.eventSlug'],
    [{ eventSlug: 'x', note: 'hi' }, 'body.note'],
  ])('rejects %j with a 400 naming %s', async (payload, field) => {
    const user = await newUser(t.app);
    const res = await add(user, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 404 for an unknown market', async () => {
    const user = await newUser(t.app);
    expect((await add(user, { eventSlug: 'no-such-market' })).statusCode).toBe(404);
    expect((await add(user, { eventId: '999999999' })).statusCode).toBe(404);
    expect((await remove(user, 'no-such-market')).statusCode).toBe(404);
    expect((await remove(user, '999999999')).statusCode).toBe(404);
  });

  it("is private: one user never sees or changes another user's watchlist", async () => {
    const alice = await newUser(t.app);
    const bob = await newUser(t.app);
    const event = await insertEvent(t.database);
    await add(alice, { eventSlug: event.slug });
    expect((await list(bob)).json().data).toEqual([]);
    expect((await remove(bob, event.slug)).statusCode).toBe(204);
    expect((await list(alice)).json().data.map((i: { eventSlug: string }) => i.eventSlug)).toEqual([
      event.slug,
    ]);
    expect((await add(bob, { eventSlug: event.slug })).statusCode).toBe(201);
    expect((await list(alice)).json().data).toHaveLength(1);
  });
});
