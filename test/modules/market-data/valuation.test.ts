import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * One valuation rule on every answer: a trader buys NO on one option of an exclusive event (1 % taker fee) and
 * converts it into YES on the two others, which never trade. The positions, the portfolio summary and every point
 * of the value over time after the conversion must give those shares the same marks, and the conversion realizes
 * nothing.
 */

interface Position {
  optionId: string;
  side: 'YES' | 'NO';
  quantity: number;
  costCents: number;
  avgPriceCents: number;
  markPriceCents: number | null;
  valueCents: number;
  unrealizedPnlCents: number;
  realizedPnlCents: number;
}
interface Portfolio {
  data: Position[];
  summary: {
    cashCents: number;
    reservedCents: number;
    positionsValueCents: number;
    totalValueCents: number;
    realizedPnlCents: number;
    unrealizedPnlCents: number;
  };
}
interface Point {
  t: string;
  cashCents: number;
  reservedCents: number;
  positionsValueCents: number;
  totalValueCents: number;
}

let t: TestApp;
let trader: TestUser;
let event: { id: string; slug: string; options: { id: string; label: string }[] };
let costBefore = 0;

const get = async <T>(url: string): Promise<T> => {
  const res = await t.app.inject({ url, headers: bearer(trader.token) });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json() as T;
};

beforeAll(async () => {
  t = await createTestApp({ env: { TAKER_FEE_BPS: '100' } });
  const admin = await newAdmin(t.app);
  trader = await newUser(t.app);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(admin.token),
    payload: {
      title: `Who wins the valuation cup ${Date.now()}`,
      category: 'cricket',
      closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      exclusive: true,
      liquidityCents: 50_000,
      options: [
        { label: 'India', initialPriceCents: 50 },
        { label: 'Australia', initialPriceCents: 30 },
        { label: 'Any other team', initialPriceCents: 20 },
      ],
      open: true,
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  event = created.json();
  const india = event.options[0]?.id as string;
  const bought = await marketTrade(t.app, trader.token, {
    optionId: india,
    side: 'NO',
    action: 'BUY',
    quantity: 40,
    price: 99,
  });
  expect(bought.statusCode, bought.body).toBe(201);
  costBefore = (await get<Portfolio>('/api/positions')).data[0]?.costCents as number;
  // Giving NO on India for YES on the two others costs nothing and pays nothing.
  const converted = await t.app.inject({
    method: 'POST',
    url: `/api/events/${event.id}/conversions`,
    headers: bearer(trader.token),
    payload: { type: 'convert', quantity: 40, optionIds: [india] },
  });
  expect(converted.statusCode, converted.body).toBe(201);
  expect(converted.json().cashCents).toBe(0);
  // An hour passes: the trade's candles have ended, and the history has points after the conversion.
  const db = t.database.db;
  for (const table of ['fills', 'trades', 'journal_entries', 'conversions', 'users']) {
    await sql`UPDATE ${sql.table(table)} SET created_at = created_at - interval '1 hour'`.execute(db);
  }
  await sql`UPDATE candles SET bucket = bucket - interval '1 hour' WHERE interval IN ('1m', '1h')`.execute(
    db,
  );
  t.app.services.marketReads.invalidateAll();
});
afterAll(async () => {
  await t?.close();
});

describe('one valuation rule', () => {
  it('marks every position it values, options that never traded at the chance their conversion booked', async () => {
    const { data, summary } = await get<Portfolio>('/api/positions');
    const held = data.filter((position) => position.quantity > 0);
    expect(held.map((position) => position.side)).toEqual(['YES', 'YES']);
    const conversions = await get<{
      data: { legs: { optionId: string; side: string; priceCents: number }[] }[];
    }>('/api/conversions');
    const legs = conversions.data[0]?.legs ?? [];
    for (const position of held) {
      const leg = legs.find((l) => l.optionId === position.optionId && l.side === 'YES');
      expect(position.markPriceCents, position.optionId).toBe(leg?.priceCents);
      expect(position.valueCents).toBe(position.quantity * (position.markPriceCents as number));
      expect(position.unrealizedPnlCents).toBe(position.valueCents - position.costCents);
    }
    expect(summary.positionsValueCents).toBe(held.reduce((sum, p) => sum + p.valueCents, 0));
    expect(summary.unrealizedPnlCents).toBe(held.reduce((sum, p) => sum + p.unrealizedPnlCents, 0));
  });

  it('books no realized P&L for a conversion: the cost basis moves to the shares received', async () => {
    const { data, summary } = await get<Portfolio>('/api/positions');
    expect(summary.realizedPnlCents).toBe(0);
    for (const position of data) expect(position.realizedPnlCents).toBe(0);
    const held = data.filter((position) => position.quantity > 0);
    expect(held.reduce((sum, p) => sum + p.costCents, 0)).toBe(costBefore);
    const { rows } = await sql<{ total: string }>`
      SELECT sum(realized_pnl_cents) AS total FROM positions WHERE user_id = ${Number(trader.id)}`.execute(
      t.database.db,
    );
    expect(Number(rows[0]?.total)).toBe(0);
  });

  it('ends the value over time where the summary stands, at every point since the conversion', async () => {
    const { summary } = await get<Portfolio>('/api/positions');
    const now: Omit<Point, 't'> = {
      cashCents: summary.cashCents,
      reservedCents: summary.reservedCents,
      positionsValueCents: summary.positionsValueCents,
      totalValueCents: summary.totalValueCents,
    };
    expect(now.positionsValueCents).toBeGreaterThan(0);
    for (const range of ['1d', '1w', 'all']) {
      const history = await get<{ data: Point[] }>(`/api/me/portfolio-history?range=${range}`);
      const { t: _last, ...last } = history.data.at(-1) as Point;
      expect(last, range).toEqual(now);
      // Five-minute points (a day, and all of an account an hour old): the last before now is after the conversion.
      if (range === '1w') continue;
      const { t: _before, ...beforeLast } = history.data.at(-2) as Point;
      expect(beforeLast, range).toEqual(now);
    }
    const day = await get<{ data: Point[] }>('/api/me/portfolio-history?range=1d');
    const since = day.data.filter((point) => Date.parse(point.t) > Date.now() - 55 * 60_000);
    expect(since.length).toBeGreaterThan(5);
    for (const { t: _time, ...point } of since) expect(point).toEqual(now);
    await expectInvariants(t.database);
  });
});
