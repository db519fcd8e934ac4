import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, type Market, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * Three traders over three days: two markets, one resolved and settled on the last day. Afterwards the tickers, the
 * tapes, each trader's fills, settlements and portfolio history must agree with the positions, the order book and
 * the ledger. Days pass by moving every stored time of the database one day back (whole days, so every candle stays
 * on its interval's boundaries).
 */

const DAY = 86_400_000;
let t: TestApp;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let match: Market;
let weather: Market;

const get = async (url: string, token?: string) => {
  const res = await t.app.inject({ url, ...(token ? { headers: bearer(token) } : {}) });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
};

/** Every item of a cursor-paginated list, following nextCursor with small pages. */
async function all<T>(url: string, token?: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const page: { data: T[]; nextCursor: string | null } = await get(
      `${url}${sep}limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      token,
    );
    items.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** A day passes: every time the reads use moves one day back. */
async function aDayPasses(): Promise<void> {
  const db = t.database.db;
  for (const table of ['fills', 'trades', 'journal_entries', 'position_settlements', 'users']) {
    await sql`UPDATE ${sql.table(table)} SET created_at = created_at - interval '1 day'`.execute(db);
  }
  await sql`UPDATE events SET resolved_at = resolved_at - interval '1 day'`.execute(db);
  // Through a far-away time, so that no moved candle meets one not yet moved.
  await sql`UPDATE candles SET bucket = bucket + interval '100 years'`.execute(db);
  await sql`UPDATE candles SET bucket = bucket - interval '100 years 1 day'`.execute(db);
  t.app.services.marketReads.invalidateAll();
}

const option = (market: Market, index: number) => market.options[index]?.id as string;

beforeAll(async () => {
  t = await createTestApp({ env: { TAKER_FEE_BPS: '100' } });
  admin = await newAdmin(t.app);
  alice = await newUser(t.app);
  bob = await newUser(t.app);
  carol = await newUser(t.app);
  match = await createMarket(t.app, admin.token, {
    options: [{ label: 'Home', liquidityCents: 50_000 }, { label: 'Away' }],
  });
  weather = await createMarket(t.app, admin.token, { options: [{ label: 'Rain', liquidityCents: 50_000 }] });
  const [home, away, rain] = [option(match, 0), option(match, 1), option(weather, 0)];
  const ok = async (res: Promise<{ statusCode: number; body: string }>) =>
    expect((await res).statusCode, (await res).body).toBe(201);
  // Day one.
  await ok(
    marketTrade(t.app, alice.token, { optionId: home, side: 'YES', action: 'BUY', quantity: 20, price: 70 }),
  );
  await ok(
    limitOrder(t.app, bob.token, { optionId: away, side: 'NO', action: 'BUY', quantity: 10, price: 45 }),
  );
  await ok(
    limitOrder(t.app, carol.token, { optionId: away, side: 'YES', action: 'BUY', quantity: 10, price: 55 }),
  );
  await ok(
    marketTrade(t.app, carol.token, { optionId: rain, side: 'YES', action: 'BUY', quantity: 15, price: 65 }),
  );
  await aDayPasses();
  // Day two.
  await ok(
    marketTrade(t.app, alice.token, { optionId: home, side: 'YES', action: 'SELL', quantity: 5, price: 30 }),
  );
  await ok(
    marketTrade(t.app, bob.token, { optionId: home, side: 'YES', action: 'BUY', quantity: 8, price: 75 }),
  );
  await ok(
    limitOrder(t.app, carol.token, { optionId: away, side: 'YES', action: 'SELL', quantity: 4, price: 50 }),
  );
  await ok(
    limitOrder(t.app, bob.token, { optionId: away, side: 'YES', action: 'BUY', quantity: 4, price: 52 }),
  );
  await ok(
    marketTrade(t.app, alice.token, { optionId: rain, side: 'NO', action: 'BUY', quantity: 10, price: 50 }),
  );
  await aDayPasses();
  // Day three: more trading, orders left resting, and the match resolved and settled.
  await ok(
    marketTrade(t.app, carol.token, { optionId: rain, side: 'YES', action: 'BUY', quantity: 5, price: 70 }),
  );
  await ok(
    limitOrder(t.app, bob.token, { optionId: rain, side: 'YES', action: 'BUY', quantity: 3, price: 20 }),
  );
  await ok(
    limitOrder(t.app, alice.token, { optionId: rain, side: 'NO', action: 'SELL', quantity: 2, price: 80 }),
  );
  const post = (url: string, payload?: object) =>
    t.app.inject({ method: 'POST', url, headers: bearer(admin.token), ...(payload ? { payload } : {}) });
  expect((await post(`/api/admin/events/${match.id}/close`)).statusCode).toBe(200);
  const outcomes = [
    { optionId: home, outcome: 'YES' },
    { optionId: away, outcome: 'NO' },
  ];
  expect((await post(`/api/admin/events/${match.id}/resolve`, { outcomes })).statusCode).toBe(200);
  expect((await post(`/api/admin/events/${match.id}/settle`)).statusCode).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

interface TapeTrade {
  id: string;
  optionId: string;
  yesPriceCents: number;
  quantity: number;
  takerSide: 'YES' | 'NO';
  at: string;
}
interface Fill {
  fillId: string;
  optionId: string;
  side: 'YES' | 'NO';
  action: 'BUY' | 'SELL';
  role: string;
  priceCents: number;
  yesPriceCents: number;
  quantity: number;
  feeCents: number;
  createdAt: string;
}
interface Settlement {
  optionId: string;
  side: 'YES' | 'NO';
  outcome: string;
  quantity: number;
  payoutCents: number;
  settledAt: string;
}

async function tapeOf(optionId: string) {
  return all<TapeTrade>(`/api/options/${optionId}/trades`);
}

async function positionsInDb(optionId: string) {
  const { rows } = await sql<{ side: string; quantity: string }>`
    SELECT side, sum(quantity) AS quantity FROM positions WHERE option_id = ${Number(optionId)} GROUP BY side`.execute(
    t.database.db,
  );
  const house = await t.database.db
    .selectFrom('options')
    .select(['amm_yes_shares', 'amm_no_shares'])
    .where('id', '=', Number(optionId))
    .executeTakeFirstOrThrow();
  const held = (side: string) => Number(rows.find((row) => row.side === side)?.quantity ?? 0);
  return { yes: held('YES') + house.amm_yes_shares, no: held('NO') + house.amm_no_shares };
}

describe('market data after three days of trading and a settlement', () => {
  it('tickers agree with the order book, the tape and the positions', async () => {
    const rain = option(weather, 0);
    const { data } = await get('/api/tickers');
    const ids = data.map((ticker: { optionId: string }) => ticker.optionId);
    expect(ids).toContain(rain);
    expect(ids).not.toContain(option(match, 0));
    const ticker = data.find((x: { optionId: string }) => x.optionId === rain);
    const book = await get(`/api/orderbook/${rain}`);
    const tape = await tapeOf(rain);
    const dayAgo = Date.now() - DAY;
    const recent = tape.filter((trade) => Date.parse(trade.at) >= dayAgo);
    const before = tape.find((trade) => Date.parse(trade.at) < dayAgo) as TapeTrade;
    const open = await positionsInDb(rain);
    expect(open.yes).toBe(open.no);
    expect(ticker).toEqual({
      optionId: rain,
      eventSlug: weather.slug,
      optionLabel: 'Rain',
      status: 'open',
      bestBidCents: book.yes.bids[0].priceCents,
      bestBidQuantity: book.yes.bids[0].quantity,
      bestAskCents: book.yes.asks[0].priceCents,
      bestAskQuantity: book.yes.asks[0].quantity,
      lastPriceCents: book.lastYesPriceCents,
      previousPriceCents: before.yesPriceCents,
      change24hCents: book.lastYesPriceCents - before.yesPriceCents,
      volume24hShares: recent.reduce((sum, trade) => sum + trade.quantity, 0),
      volume24hCents: recent.reduce(
        (sum, x) => sum + x.quantity * (x.takerSide === 'YES' ? x.yesPriceCents : 100 - x.yesPriceCents),
        0,
      ),
      openInterest: open.yes,
    });
    expect(recent.length).toBeGreaterThan(0);
    const settled = await get(`/api/tickers?eventSlug=${match.slug}`);
    expect(
      settled.data.map((x: { status: string; openInterest: number }) => [x.status, x.openInterest]),
    ).toEqual([
      ['settled', 0],
      ['settled', 0],
    ]);
    const chosen = await get(`/api/tickers?optionIds=${rain},${option(match, 1)}`);
    expect(chosen.data.map((x: { optionId: string }) => x.optionId).sort()).toEqual(
      [rain, option(match, 1)].sort(),
    );
  });

  it('the tapes hold every execution once, newest first, and add up to the volume', async () => {
    const detail = await get(`/api/events/${match.slug}`);
    const byOption = [];
    for (const entry of detail.options) {
      const tape = await tapeOf(entry.id);
      const ids = tape.map((trade) => Number(trade.id));
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(tape.reduce((sum, trade) => sum + trade.quantity, 0)).toBe(entry.volumeShares);
      byOption.push(...tape);
    }
    const eventTape = await all<TapeTrade>(`/api/events/by-slug/${match.slug}/trades`);
    expect(eventTape).toEqual(byOption.sort((a, b) => Number(b.id) - Number(a.id)));
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM fills`.execute(t.database.db);
    const everything = [...eventTape, ...(await tapeOf(option(weather, 0)))];
    expect(everything.length).toBe(Number(rows[0]?.n));
  });

  it('each trader’s fills add up to their positions and their fees to the house’s', async () => {
    let fees = 0;
    const tapeIds = new Set(
      [
        ...(await all<TapeTrade>(`/api/events/by-slug/${match.slug}/trades`)),
        ...(await tapeOf(option(weather, 0))),
      ].map((trade) => trade.id),
    );
    for (const trader of [alice, bob, carol]) {
      const fills = await all<Fill>('/api/me/fills', trader.token);
      const settlements = await all<Settlement>('/api/me/settlements', trader.token);
      const held = new Map<string, number>();
      for (const fill of fills) {
        expect(tapeIds.has(fill.fillId)).toBe(true);
        expect(fill.priceCents).toBe(fill.side === 'YES' ? fill.yesPriceCents : 100 - fill.yesPriceCents);
        const key = `${fill.optionId}:${fill.side}`;
        held.set(key, (held.get(key) ?? 0) + (fill.action === 'BUY' ? fill.quantity : -fill.quantity));
        fees += fill.feeCents;
      }
      for (const s of settlements) {
        const key = `${s.optionId}:${s.side}`;
        expect(s.quantity).toBe(held.get(key));
        const perShare = s.outcome === 'VOID' ? 50 : s.outcome === s.side ? 100 : 0;
        expect(s.payoutCents).toBe(s.quantity * perShare);
        held.set(key, (held.get(key) ?? 0) - s.quantity);
      }
      const { data: positions } = await get('/api/positions', trader.token);
      const open = new Map(
        positions.map((p: { optionId: string; side: string; quantity: number }) => [
          `${p.optionId}:${p.side}`,
          p.quantity,
        ]),
      );
      for (const [key, quantity] of held) expect(quantity, key).toBe(open.get(key) ?? 0);
      const { rows } = await sql<{ paid: string | null }>`
        SELECT sum(p.amount) AS paid FROM postings p JOIN journal_entries j ON j.id = p.entry_id
        JOIN ledger_accounts a ON a.id = p.account_id
        WHERE a.user_id = ${Number(trader.id)} AND a.kind = 'transit' AND j.kind = 'settlement'`.execute(
        t.database.db,
      );
      expect(settlements.reduce((sum, s) => sum + s.payoutCents, 0)).toBe(Number(rows[0]?.paid ?? 0));
    }
    // The fees account keeps no balance row (many markets post to it at once): its balance is its postings' sum.
    const { rows: house } = await sql<{ balance: string }>`
      SELECT coalesce(sum(p.amount), 0) AS balance FROM postings p
      JOIN ledger_accounts a ON a.id = p.account_id WHERE a.kind = 'fees'`.execute(t.database.db);
    expect(fees).toBe(Number(house[0]?.balance));
    const bobs = await all<Settlement>(`/api/me/settlements?eventSlug=${match.slug}`, bob.token);
    expect(bobs.map((s) => [s.side, s.outcome]).sort()).toEqual([
      ['NO', 'NO'],
      ['YES', 'NO'],
      ['YES', 'YES'],
    ]);
  });

  it('portfolio history agrees with the ledger, the fills and the tape at every point, and ends at the total', async () => {
    const tapes = new Map<string, TapeTrade[]>();
    for (const id of [option(match, 0), option(match, 1), option(weather, 0)])
      tapes.set(id, await tapeOf(id));
    const { rows: resolved } = await sql<{ id: string; resolution: string | null; resolved_at: Date | null }>`
      SELECT o.id, o.resolution, e.resolved_at FROM options o JOIN events e ON e.id = o.event_id`.execute(
      t.database.db,
    );
    for (const trader of [alice, bob, carol]) {
      const fills = await all<Fill>('/api/me/fills', trader.token);
      const settlements = await all<Settlement>('/api/me/settlements', trader.token);
      const valueAt = async (time: number) => {
        const { rows } = await sql<{ kind: string; amount: string }>`
          SELECT a.kind, sum(p.amount) AS amount FROM postings p JOIN journal_entries j ON j.id = p.entry_id
          JOIN ledger_accounts a ON a.id = p.account_id
          WHERE a.user_id = ${Number(trader.id)} AND j.created_at < ${new Date(time)} GROUP BY a.kind`.execute(
          t.database.db,
        );
        const balance = (kind: string) => Number(rows.find((row) => row.kind === kind)?.amount ?? 0);
        const held = new Map<string, number>();
        for (const f of fills.filter((fill) => Date.parse(fill.createdAt) < time)) {
          const key = `${f.optionId}:${f.side}`;
          held.set(key, (held.get(key) ?? 0) + (f.action === 'BUY' ? f.quantity : -f.quantity));
        }
        for (const s of settlements.filter((settlement) => Date.parse(settlement.settledAt) < time)) {
          held.set(`${s.optionId}:${s.side}`, (held.get(`${s.optionId}:${s.side}`) ?? 0) - s.quantity);
        }
        let positionsValueCents = 0;
        for (const [key, quantity] of held) {
          const [optionId, side] = key.split(':') as [string, 'YES' | 'NO'];
          const outcome = resolved.find((row) => String(row.id) === optionId);
          const last = tapes.get(optionId)?.find((trade) => Date.parse(trade.at) < time);
          const mark =
            outcome?.resolution && outcome.resolved_at && outcome.resolved_at.getTime() < time
              ? outcome.resolution === 'VOID'
                ? 50
                : outcome.resolution === side
                  ? 100
                  : 0
              : last
                ? side === 'YES'
                  ? last.yesPriceCents
                  : 100 - last.yesPriceCents
                : 0;
          positionsValueCents += quantity * mark;
        }
        // Cash on its way to the markets and back (the transit account) is the trader's cash too.
        const cashCents = balance('cash') + balance('transit');
        const reservedCents = balance('reserved');
        return {
          t: new Date(time).toISOString(),
          cashCents,
          reservedCents,
          positionsValueCents,
          totalValueCents: cashCents + reservedCents + positionsValueCents,
        };
      };
      const { summary } = await get('/api/positions', trader.token);
      for (const [range, step, minPoints] of [
        ['1w', 3_600, 48],
        ['all', 3_600, 48],
        ['1d', 300, 280],
      ] as const) {
        const history = await get(`/api/me/portfolio-history?range=${range}`, trader.token);
        expect(history.stepSeconds).toBe(step);
        expect(history.data.length).toBeGreaterThanOrEqual(minPoints);
        const points = history.data.slice(0, -1);
        for (const point of points) {
          expect(Date.parse(point.t) % (step * 1000)).toBe(0);
          expect(point).toEqual(await valueAt(Date.parse(point.t)));
        }
        expect(history.data.at(-1)).toMatchObject({
          cashCents: summary.cashCents,
          reservedCents: summary.reservedCents,
          positionsValueCents: summary.positionsValueCents,
          totalValueCents: summary.totalValueCents,
        });
      }
      const week = await get('/api/me/portfolio-history?range=1w', trader.token);
      expect(
        new Set(week.data.map((p: { totalValueCents: number }) => p.totalValueCents)).size,
      ).toBeGreaterThan(1);
    }
    await expectInvariants(t.database);
  });
});
