import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';
import { insertTradeRow } from '../../support/trade-rows.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const exportCsv = (token: string) => t.app.inject({ url: '/api/me/trades/export', headers: bearer(token) });

describe('GET /api/me/trades/export', () => {
  it('needs authentication', async () => {
    const res = await t.app.inject({ url: '/api/me/trades/export' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHENTICATED');
  });

  it('is a CSV attachment with only a header line for a user without trades', async () => {
    const user = await newUser(t.app);
    const res = await exportCsv(user.token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="trades.csv"');
    expect(res.body).toBe(
      'tradeId,createdAt,event,eventTitle,option,side,action,quantity,priceCents,feeCents,notionalCents,' +
        'liquidity,orderId,orderKind,record,recordId,outcome,cashCents,pnlCents\r\n',
    );
  });

  it('round-trips names with commas, quotes, line breaks and a leading = through an RFC 4180 parser', async () => {
    const user = await newUser(t.app);
    const title = 'Will "India", at home,\nwin the series?';
    const event = await insertEvent(t.database, {
      title,
      options: ['=HYPERLINK("http://evil.example","x")', 'Draw, or "tie"\r\nmaybe'],
    });
    const [formula, quoted] = event.options;
    const first = await insertTradeRow(t.database, {
      userId: user.id,
      optionId: formula!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 7,
      priceCents: 43,
      feeCents: 2,
    });
    const second = await insertTradeRow(t.database, {
      userId: user.id,
      optionId: quoted!.id,
      side: 'NO',
      action: 'SELL',
      quantity: 3,
      priceCents: 61,
      liquidity: 'maker',
    });

    const res = await exportCsv(user.token);
    expect(res.statusCode).toBe(200);
    const records: Record<string, string>[] = parse(res.body, { columns: true, relax_quotes: false });
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      tradeId: String(first.id),
      event: event.slug,
      eventTitle: title,
      option: `'=HYPERLINK("http://evil.example","x")`,
      side: 'YES',
      action: 'BUY',
      quantity: '7',
      priceCents: '43',
      feeCents: '2',
      notionalCents: '301',
      liquidity: 'taker',
      orderId: String(first.orderId),
      orderKind: 'market',
    });
    expect(new Date(records[0]!.createdAt!).toISOString()).toBe(records[0]!.createdAt);
    expect(records[1]).toMatchObject({
      tradeId: String(second.id),
      option: 'Draw, or "tie"\r\nmaybe',
      side: 'NO',
      action: 'SELL',
      notionalCents: '183',
      liquidity: 'maker',
    });
    // Quotes are doubled inside quoted fields, as RFC 4180 requires.
    expect(res.body).toContain('"Will ""India"", at home,\nwin the series?"');
  });

  it('neutralises every formula trigger at the start of a text cell', async () => {
    const user = await newUser(t.app);
    const labels = ['+1 run', '-2 wickets', '@SUM(A1)', '\tTabbed', '\rReturn', 'Plain'];
    const event = await insertEvent(t.database, { title: '=1+1', options: labels });
    for (const option of event.options) {
      await insertTradeRow(t.database, { userId: user.id, optionId: option.id });
    }
    const records: Record<string, string>[] = parse((await exportCsv(user.token)).body, { columns: true });
    expect(records.map((r) => r.option)).toEqual([
      "'+1 run",
      "'-2 wickets",
      "'@SUM(A1)",
      "'\tTabbed",
      "'\rReturn",
      'Plain',
    ]);
    expect(new Set(records.map((r) => r.eventTitle))).toEqual(new Set(["'=1+1"]));
  });

  it('streams every trade across many database pages, oldest first', async () => {
    const user = await newUser(t.app);
    const event = await insertEvent(t.database);
    const option = event.options[0]!;
    const total = 1203;
    await t.database.db.transaction().execute(async (trx) => {
      const order = await trx
        .insertInto('orders')
        .values({
          user_id: Number(user.id),
          option_id: option.id,
          kind: 'limit',
          side: 'YES',
          action: 'BUY',
          price_cents: 40,
          book_side: 'bid',
          book_price: 40,
          quantity: total,
          filled_quantity: total,
          status: 'filled',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const fill = await trx
        .insertInto('fills')
        .values({
          option_id: option.id,
          yes_price: 40,
          quantity: total,
          kind: 'mint',
          taker_order_id: order.id,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const rows = Array.from({ length: total }, () => ({
        fill_id: fill.id,
        order_id: order.id,
        user_id: Number(user.id),
        option_id: option.id,
        event_id: event.id,
        side: 'YES' as const,
        action: 'BUY' as const,
        quantity: 1,
        price_cents: 40,
        liquidity: 'maker' as const,
      }));
      await trx.insertInto('trades').values(rows).execute();
    });
    const records: Record<string, string>[] = parse((await exportCsv(user.token)).body, { columns: true });
    expect(records).toHaveLength(total);
    const ids = records.map((r) => Number(r.tradeId));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(records.every((r) => r.orderKind === 'limit')).toBe(true);
  });

  it("never includes another user's trades", async () => {
    const alice = await newUser(t.app);
    const bob = await newUser(t.app);
    const event = await insertEvent(t.database, { title: 'Private trades' });
    const alicesTrade = await insertTradeRow(t.database, {
      userId: alice.id,
      optionId: event.options[0]!.id,
    });
    const bobsCsv: Record<string, string>[] = parse((await exportCsv(bob.token)).body, { columns: true });
    expect(bobsCsv).toEqual([]);
    const alicesCsv: Record<string, string>[] = parse((await exportCsv(alice.token)).body, { columns: true });
    expect(alicesCsv.map((r) => r.tradeId)).toEqual([String(alicesTrade.id)]);
  });
});
