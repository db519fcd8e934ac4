import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';
import { insertTradeRow } from '../../support/trade-rows.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const post = (user: TestUser, payload: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/api/me/trade-notes',
    headers: bearer(user.token),
    payload: payload as object,
  });
const list = (user: TestUser, query = '') =>
  t.app.inject({ url: `/api/me/trade-notes${query}`, headers: bearer(user.token) });
const remove = (user: TestUser, id: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/me/trade-notes/${id}`, headers: bearer(user.token) });

describe('trade notes', () => {
  it('need authentication', async () => {
    expect((await t.app.inject({ url: '/api/me/trade-notes' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/me/trade-notes', payload: { text: 'x' } })).statusCode,
    ).toBe(401);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/me/trade-notes/1' })).statusCode).toBe(401);
  });

  it('can be written on a market and on one of your trades, and listed by either', async () => {
    const user = await newUser(t.app);
    const event = await insertEvent(t.database, { title: 'Final over' });
    const other = await insertEvent(t.database);
    const trade = await insertTradeRow(t.database, { userId: user.id, optionId: event.options[0]!.id });

    const onEvent = await post(user, {
      text: '  Pitch looks slow; fade the chasers.  ',
      eventSlug: event.slug,
    });
    expect(onEvent.statusCode).toBe(201);
    expect(onEvent.json()).toMatchObject({
      text: 'Pitch looks slow; fade the chasers.',
      tradeId: null,
      eventId: String(event.id),
      eventSlug: event.slug,
      eventTitle: 'Final over',
    });
    const onTrade = await post(user, { text: 'Bought the dip at 50.', tradeId: String(trade.id) });
    expect(onTrade.statusCode).toBe(201);
    expect(onTrade.json()).toMatchObject({ tradeId: String(trade.id), eventSlug: event.slug });
    const elsewhere = await post(user, { text: 'Unrelated market', eventSlug: other.slug });
    expect(elsewhere.statusCode).toBe(201);

    const all = (await list(user)).json();
    expect(all.data.map((n: { id: string }) => n.id)).toEqual([
      elsewhere.json().id,
      onTrade.json().id,
      onEvent.json().id,
    ]);
    expect(all.nextCursor).toBeNull();
    const byEvent = (await list(user, `?eventSlug=${event.slug}`)).json();
    expect(byEvent.data.map((n: { id: string }) => n.id)).toEqual([onTrade.json().id, onEvent.json().id]);
    const byTrade = (await list(user, `?tradeId=${trade.id}`)).json();
    expect(byTrade.data.map((n: { id: string }) => n.id)).toEqual([onTrade.json().id]);
  });

  it('are paginated newest first with a cursor', async () => {
    const user = await newUser(t.app);
    const event = await insertEvent(t.database);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await post(user, { text: `note ${i}`, eventSlug: event.slug })).json().id);
    const first = (await list(user, '?limit=2')).json();
    const second = (await list(user, `?limit=2&cursor=${first.nextCursor}`)).json();
    const third = (await list(user, `?limit=2&cursor=${second.nextCursor}`)).json();
    expect([...first.data, ...second.data, ...third.data].map((n: { id: string }) => n.id)).toEqual(
      [...ids].reverse(),
    );
    expect(third.nextCursor).toBeNull();
    expect((await list(user, '?cursor=garbage')).statusCode).toBe(400);
  });

  it.each([
    [{ text: 'no target' }, 'body.tradeId'],
    [{ text: 'two targets', tradeId: '1', eventSlug: 'x' }, 'body.eventSlug'],
    [{ text: '', eventSlug: 'x' }, 'body.text'],
    [{ text: '   ', eventSlug: 'x' }, 'body.text'],
    [{ text: 'x'.repeat(2001), eventSlug: 'x' }, 'body.text'],
    [{ text: 'nul\u0000', eventSlug: 'x' }, 'body.text'],
    [{ text: 'bad id', tradeId: 'abc' }, 'body.tradeId'],
    [{ text: 'extra', eventSlug: 'x', pinned: true }, 'body.pinned'],
  ])('reject %j with a 400 naming %s', async (payload, field) => {
    const user = await newUser(t.app);
    const res = await post(user, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accept text of exactly 2000 characters', async () => {
    const user = await newUser(t.app);
    const event = await insertEvent(t.database);
    const res = await post(user, { text: 'n'.repeat(2000), eventSlug: event.slug });
    expect(res.statusCode).toBe(201);
  });

  it('answer 404 for an unknown market or trade', async () => {
    const user = await newUser(t.app);
    expect((await post(user, { text: 'x', eventSlug: 'no-such-market' })).statusCode).toBe(404);
    expect((await post(user, { text: 'x', tradeId: '999999999' })).statusCode).toBe(404);
    expect((await list(user, '?eventSlug=no-such-market')).statusCode).toBe(404);
    expect((await remove(user, '999999999')).statusCode).toBe(404);
  });

  it('can be deleted by their owner, once', async () => {
    const user = await newUser(t.app);
    const event = await insertEvent(t.database);
    const note = (await post(user, { text: 'delete me', eventSlug: event.slug })).json();
    expect((await remove(user, note.id)).statusCode).toBe(204);
    expect((await remove(user, note.id)).statusCode).toBe(404);
    expect((await list(user)).json().data).toEqual([]);
  });

  it("are private: another user can neither read, filter by, note on nor delete someone's notes or trades", async () => {
    const alice = await newUser(t.app);
    const bob = await newUser(t.app);
    const event = await insertEvent(t.database);
    const alicesTrade = await insertTradeRow(t.database, {
      userId: alice.id,
      optionId: event.options[0]!.id,
    });
    const note = (await post(alice, { text: 'Alice secret', tradeId: String(alicesTrade.id) })).json();

    expect((await list(bob)).json().data).toEqual([]);
    expect((await list(bob, `?eventSlug=${event.slug}`)).json().data).toEqual([]);
    expect((await list(bob, `?tradeId=${alicesTrade.id}`)).statusCode).toBe(404);
    expect((await post(bob, { text: 'on her trade', tradeId: String(alicesTrade.id) })).statusCode).toBe(404);
    expect((await remove(bob, note.id)).statusCode).toBe(404);
    expect((await list(alice)).json().data.map((n: { id: string }) => n.id)).toEqual([note.id]);
  });
});
