import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent } from '../../support/markets.js';

/**
 * Candles are kept by the transactions that make the trades, never by reading the trades back: after any sequence
 * of trades, the candles served equal those recomputed here from the public tape, at every interval, with each
 * empty interval flat at the previous close. Trades made through the API all fall in the minutes the test runs in;
 * the sequences that cross minute, hour and day boundaries are fed to the same writer with times of their own.
 */

type Interval = '1m' | '5m' | '15m' | '1h' | '6h' | '1d';
const WIDTH: Record<Interval, number> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '1d': 86_400_000,
};
const INTERVALS = Object.keys(WIDTH) as Interval[];

interface Execution {
  id: number;
  yesPriceCents: number;
  quantity: number;
  takerSide: 'YES' | 'NO';
  at: number;
}

interface Candle {
  t: string;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
  vc: number;
}

/** The candles of [from, to) recomputed from executions (oldest first): the definition the API promises. */
function expectedCandles(executions: Execution[], interval: Interval, from: number, to: number): Candle[] {
  const width = WIDTH[interval];
  const buckets = new Map<number, Candle>();
  for (const e of executions) {
    const bucket = Math.floor(e.at / width) * width;
    const cents = e.quantity * (e.takerSide === 'YES' ? e.yesPriceCents : 100 - e.yesPriceCents);
    const p = e.yesPriceCents;
    const found = buckets.get(bucket);
    if (!found) {
      buckets.set(bucket, { t: '', o: p, h: p, l: p, c: p, v: e.quantity, vc: cents });
      continue;
    }
    Object.assign(found, {
      h: Math.max(found.h, p),
      l: Math.min(found.l, p),
      c: p,
      v: found.v + e.quantity,
      vc: found.vc + cents,
    });
  }
  const candles: Candle[] = [];
  let close: number | null = null;
  const first = Math.floor(Math.min(...executions.map((e) => e.at)) / width) * width;
  for (let bucket = Math.min(first, Math.floor(from / width) * width); bucket < to; bucket += width) {
    const found = buckets.get(bucket);
    if (found) close = found.c;
    if (bucket < from || close === null) continue;
    const t = new Date(bucket).toISOString();
    candles.push(found ? { ...found, t } : { t, o: close, h: close, l: close, c: close, v: 0, vc: 0 });
  }
  return candles;
}

async function candlesOf(
  t: TestApp,
  optionId: string | number,
  interval: Interval,
  from: number,
  to: number,
): Promise<Candle[]> {
  const query = `interval=${interval}&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
  const res = await t.app.inject({ url: `/api/options/${optionId}/candles?${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** Every execution of an option from its public tape, oldest first, following the cursor. */
async function tapeOf(t: TestApp, optionId: string): Promise<Execution[]> {
  const executions: Execution[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&cursor=${cursor}` : '';
    const res = await t.app.inject({ url: `/api/options/${optionId}/trades?limit=7${after}` });
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json();
    for (const trade of page.data)
      executions.push({ ...trade, id: Number(trade.id), at: Date.parse(trade.at) });
    cursor = page.nextCursor;
  } while (cursor);
  return executions.reverse();
}

let t: TestApp;
let admin: TestUser;
let traders: TestUser[];

beforeAll(async () => {
  t = await createTestApp({ env: { TAKER_FEE_BPS: '100' } });
  admin = await newAdmin(t.app);
  traders = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
});
afterAll(async () => {
  await t?.close();
});

const order = fc.record({
  user: fc.integer({ min: 0, max: 2 }),
  kind: fc.constantFrom('limit' as const, 'limit' as const, 'market' as const),
  side: fc.constantFrom('YES' as const, 'NO' as const),
  action: fc.constantFrom('BUY' as const, 'BUY' as const, 'SELL' as const),
  quantity: fc.integer({ min: 1, max: 40 }),
  price: fc.integer({ min: 30, max: 70 }),
});

describe('candles', () => {
  it('equal the candles recomputed from the tape after random trading through the API', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(order, { minLength: 1, maxLength: 14 }), async (orders) => {
        const market = await createMarket(t.app, admin.token, {
          options: [{ label: 'Yes', liquidityCents: 20_000 }],
        });
        const optionId = market.options[0]?.id as string;
        for (const o of orders) {
          const place = o.kind === 'limit' ? limitOrder : marketTrade;
          await place(t.app, (traders[o.user] as TestUser).token, { optionId, ...o });
        }
        const executions = await tapeOf(t, optionId);
        const detail = (await t.app.inject({ url: `/api/events/${market.slug}` })).json();
        expect(executions.reduce((sum, e) => sum + e.quantity, 0)).toBe(detail.options[0].volumeShares);
        if (executions.length === 0) {
          expect(await candlesOf(t, optionId, '1m', Date.now() - 600_000, Date.now())).toEqual([]);
          return;
        }
        for (const interval of INTERVALS) {
          const width = WIDTH[interval];
          const from = Math.floor((Date.now() - 3 * width) / width) * width;
          const to = Math.floor(Date.now() / width) * width + width;
          expect(await candlesOf(t, optionId, interval, from, to)).toEqual(
            expectedCandles(executions, interval, from, to),
          );
        }
        const days = await candlesOf(t, optionId, '1d', Date.now() - 2 * 86_400_000, Date.now());
        expect(days.reduce((sum, day) => sum + day.vc, 0)).toBe(detail.options[0].volumeCents);
      }),
      { numRuns: 8, endOnFailure: true },
    );
    await expectInvariants(t.database);
  });

  it('equal the recomputed candles when the trades cross minute, hour, 6-hour and day boundaries, two options written in shared transactions', async () => {
    const gap = fc.oneof(
      fc.constantFrom(0, 1, 999, 59_999, 60_000, 60_001, 299_999, 900_000, 3_599_999, 3_600_000, 3_600_001),
      fc.integer({ min: 0, max: 900_000 }),
    );
    const execution = fc.record({
      gap,
      yesPriceCents: fc.integer({ min: 1, max: 99 }),
      quantity: fc.integer({ min: 1, max: 1_000 }),
      takerSide: fc.constantFrom('YES' as const, 'NO' as const),
      // Executions of one committed change share its time; a new change starts at a gap.
      sameChange: fc.boolean(),
      // Which of the event's two options it trades; a transaction writes the changes of every option it touched,
      // one option's changes possibly twice (an option's fills of one time in one change).
      second: fc.boolean(),
      sameTransaction: fc.boolean(),
    });
    // Two hours before a UTC midnight ten days ago: the sequences cross minutes, hours, a 6-hour bound and a day.
    const start = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 10 * 86_400_000 - 2 * 3_600_000;
    await fc.assert(
      fc.asyncProperty(fc.array(execution, { minLength: 1, maxLength: 20 }), async (drafts) => {
        const event = await insertEvent(t.database, { options: ['First', 'Second'] });
        const optionIds = [event.options[0]?.id as number, event.options[1]?.id as number];
        const executions: (Execution & { optionId: number })[] = [];
        let at = start + (drafts[0]?.gap ?? 0);
        drafts.forEach((draft, index) => {
          if (index > 0 && !draft.sameChange) at += draft.gap;
          executions.push({
            ...draft,
            id: index + 1,
            at,
            optionId: optionIds[draft.second ? 1 : 0] as number,
          });
        });
        type Change = { optionId: number; at: number; fills: Execution[] };
        const transactions: Change[][] = [];
        executions.forEach((e, index) => {
          if (index === 0 || !drafts[index]?.sameTransaction) transactions.push([]);
          const changes = transactions[transactions.length - 1] as Change[];
          const last = changes[changes.length - 1];
          if (last?.optionId === e.optionId && last.at === e.at) last.fills.push(e);
          else changes.push({ optionId: e.optionId, at: e.at, fills: [e] });
        });
        for (const changes of transactions) {
          await t.database.db.transaction().execute((trx) =>
            t.app.services.marketData.recordFills(
              trx,
              changes.map(({ optionId, fills }) => ({
                optionId,
                fills: fills.map((f) => ({ ...f, at: new Date(f.at).toISOString() })),
              })),
            ),
          );
        }
        for (const optionId of optionIds) {
          const own = executions.filter((e) => e.optionId === optionId);
          const last = own[own.length - 1]?.at;
          if (last === undefined) {
            expect(await candlesOf(t, optionId, '1d', start - 86_400_000, start + 2 * 86_400_000)).toEqual(
              [],
            );
            continue;
          }
          for (const interval of INTERVALS) {
            const width = WIDTH[interval];
            const from = Math.floor(start / width) * width - width;
            const to = Math.floor(last / width) * width + 3 * width;
            expect(await candlesOf(t, optionId, interval, from, to)).toEqual(
              expectedCandles(own, interval, from, to),
            );
            // A range starting after the first trades opens at the close before it.
            const middle = own[Math.floor(own.length / 2)]?.at as number;
            const later = Math.floor(middle / width) * width + width;
            expect(await candlesOf(t, optionId, interval, later, to)).toEqual(
              expectedCandles(own, interval, later, to),
            );
          }
        }
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('refuses a range of more than 1,440 candles and answers 404 for an unknown option', async () => {
    const market = await createMarket(t.app, admin.token);
    const optionId = market.options[0]?.id as string;
    const wide = await t.app.inject({
      url: `/api/options/${optionId}/candles?interval=1m&from=2020-01-01T00:00:00Z&to=2020-01-03T00:00:00Z`,
    });
    expect(wide.statusCode).toBe(400);
    expect(wide.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    const backwards = await t.app.inject({
      url: `/api/options/${optionId}/candles?from=2020-01-03T00:00:00Z&to=2020-01-01T00:00:00Z`,
    });
    expect(backwards.statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/options/999999/candles' })).statusCode).toBe(404);
    const none = await t.app.inject({ url: `/api/options/${optionId}/candles?interval=1d` });
    expect(none.json()).toEqual({ optionId, interval: '1d', data: [] });
  });
});
