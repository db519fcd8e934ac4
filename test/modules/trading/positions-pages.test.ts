import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { positionAfterCursor } from '../../../src/modules/trading/views.js';
import { ValidationError } from '../../../src/platform/errors.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createMarket, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * GET /api/positions in pages: a trader holding YES and NO on several options reads them a page at a time; every
 * position comes exactly once, in the order of its option and side, each page carries the summary of all of them,
 * and the answer without `limit` stays what it was (every position, `nextCursor` null).
 */

interface Position {
  id: string;
  optionId: string;
  side: 'YES' | 'NO';
  quantity: number;
  valueCents: number;
  unrealizedPnlCents: number;
}
interface Portfolio {
  data: Position[];
  nextCursor: string | null;
  summary: Record<string, number>;
}

let t: TestApp;
let trader: TestUser;
let other: TestUser;

const get = async (user: TestUser, url: string) => t.app.inject({ url, headers: bearer(user.token) });

const portfolio = async (user: TestUser, url: string): Promise<Portfolio> => {
  const res = await get(user, url);
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json() as Portfolio;
};

/** Every page of `user`'s positions at `limit` a page, as a client following `nextCursor` reads them. */
const allPages = async (user: TestUser, limit: number): Promise<Portfolio[]> => {
  const pages: Portfolio[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page = await portfolio(user, `/api/positions?limit=${limit}${query}`);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 100);
  return pages;
};

const buy = async (user: TestUser, optionId: string, side: 'YES' | 'NO', quantity: number) => {
  const res = await marketTrade(t.app, user.token, { optionId, side, action: 'BUY', quantity, price: 99 });
  expect(res.statusCode, res.body).toBe(201);
};

beforeAll(async () => {
  t = await createTestApp();
  const admin = await newAdmin(t.app);
  trader = await newUser(t.app);
  other = await newUser(t.app);
  const options = [];
  for (let i = 0; i < 3; i++) {
    const market = await createMarket(t.app, admin.token, {
      options: ['A', 'B', 'C'].map((label) => ({ label, liquidityCents: 20_000 })),
    });
    options.push(...market.options.map((option) => option.id));
  }
  // YES on every option, NO on every other one: nine options, fourteen positions, trades at many prices.
  for (const [i, optionId] of options.entries()) {
    await buy(trader, optionId, 'YES', 3 + i);
    if (i % 2 === 0) await buy(trader, optionId, 'NO', 2 + i);
  }
  // One position sold back to nothing: no longer held, so in no page and not valued.
  const sold = await marketTrade(t.app, trader.token, {
    optionId: options[1] as string,
    side: 'YES',
    action: 'SELL',
    quantity: 4,
    price: 1,
  });
  expect(sold.statusCode, sold.body).toBe(201);
  await buy(other, options[0] as string, 'YES', 5);
  await buy(other, options[8] as string, 'NO', 6);
});

afterAll(async () => {
  await t.close();
});

describe('GET /api/positions in pages', () => {
  it('answers every position at once without limit, as before, with nextCursor null', async () => {
    const whole = await portfolio(trader, '/api/positions');
    expect(whole.data).toHaveLength(13);
    expect(whole.data.every((position) => position.quantity > 0)).toBe(true);
    expect(whole.nextCursor).toBeNull();
    expect(whole.summary.positionsValueCents).toBe(whole.data.reduce((sum, p) => sum + p.valueCents, 0));
    expect(whole.summary.unrealizedPnlCents).toBe(
      whole.data.reduce((sum, p) => sum + p.unrealizedPnlCents, 0),
    );
    expect(whole.summary.positionsValueCents).toBeGreaterThan(0);
  });

  it('shows every position exactly once across the pages, in the order of option and side, each with the whole summary', async () => {
    const whole = await portfolio(trader, '/api/positions');
    const order = (p: Position) => [Number(p.optionId), p.side === 'YES' ? 1 : 0];
    const sorted = [...whole.data].sort((a, b) => {
      const [x, y] = [order(a), order(b)] as [number[], number[]];
      return (x[0] as number) - (y[0] as number) || (x[1] as number) - (y[1] as number);
    });
    expect(whole.data.map((p) => p.id)).toEqual(sorted.map((p) => p.id));
    for (const limit of [1, 2, 5, 13, 500]) {
      const pages = await allPages(trader, limit);
      expect(pages).toHaveLength(Math.max(1, Math.ceil(13 / limit)));
      expect(pages.every((page) => page.data.length <= limit)).toBe(true);
      expect(pages.flatMap((page) => page.data)).toEqual(whole.data);
      for (const page of pages) expect(page.summary).toEqual(whole.summary);
      expect(pages.at(-1)?.nextCursor).toBeNull();
      expect(pages.slice(0, -1).every((page) => typeof page.nextCursor === 'string')).toBe(true);
    }
  });

  it('refuses a limit out of 1..500 and a cursor it did not make, naming the field', async () => {
    for (const [url, field] of [
      ['/api/positions?limit=0', 'query.limit'],
      ['/api/positions?limit=501', 'query.limit'],
      ['/api/positions?limit=ten', 'query.limit'],
      ['/api/positions?limit=5&cursor=nonsense', 'query.cursor'],
      ['/api/positions?cursor=nonsense', 'query.cursor'],
    ] as const) {
      const res = await get(trader, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field }] });
    }
    // Another list's cursor is refused, and so is a sealed cursor that names no option and side.
    const fills = await get(trader, '/api/me/fills?limit=1');
    expect(fills.json().nextCursor).toEqual(expect.any(String));
    const res = await get(trader, `/api/positions?limit=1&cursor=${fills.json().nextCursor}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ field: 'query.cursor', message: expect.any(String) }]);
    for (const values of [[1, 2], [0, 1], [1], ['1', 'YES']]) {
      expect(() => positionAfterCursor(values as (string | number)[]), JSON.stringify(values)).toThrow(
        ValidationError,
      );
    }
    expect(positionAfterCursor([7, 1])).toEqual({ optionId: 7, side: 'YES' });
    expect(positionAfterCursor(null)).toBeNull();
  });

  it("gives another user, with the first user's cursor, only their own positions and summary", async () => {
    const mine = await portfolio(other, '/api/positions');
    expect(mine.data).toHaveLength(2);
    const traderIds = new Set((await portfolio(trader, '/api/positions')).data.map((p) => p.id));
    let cursor = (await portfolio(trader, '/api/positions?limit=1')).nextCursor;
    while (cursor !== null) {
      const theirs = await portfolio(other, `/api/positions?limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect(theirs.summary).toEqual(mine.summary);
      for (const position of theirs.data) {
        expect(traderIds.has(position.id)).toBe(false);
        expect(mine.data.map((p) => p.id)).toContain(position.id);
      }
      const next = await portfolio(trader, `/api/positions?limit=1&cursor=${encodeURIComponent(cursor)}`);
      cursor = next.nextCursor;
    }
  });
});
