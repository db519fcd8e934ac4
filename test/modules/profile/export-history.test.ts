import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

/** The CSV export holds a trader's whole history: trades, conversions (a line per leg) and settlements, by time. */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await t.close();
});

describe('GET /api/me/trades/export', () => {
  it('lists a trade, a split leg by leg and the settlements, oldest first, with the cash each moved', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/events',
      headers: bearer(admin.token),
      payload: {
        title: `Who wins the derby ${Date.now()}`,
        category: 'football',
        closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        exclusive: true,
        liquidityCents: 20_000,
        options: [{ label: 'Home' }, { label: 'Away' }],
        open: true,
      },
    });
    const event = created.json() as { id: string; options: { id: string }[] };
    const user = await newUser(t.app);
    const bought = await marketTrade(t.app, user.token, {
      optionId: event.options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 3,
      price: 99,
    });
    expect(bought.statusCode, bought.body).toBe(201);
    const split = await t.app.inject({
      method: 'POST',
      url: `/api/events/${event.id}/conversions`,
      headers: bearer(user.token),
      payload: { type: 'split', quantity: 2 },
    });
    expect(split.statusCode, split.body).toBe(201);
    for (const step of ['resolve', 'settle']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/admin/events/${event.id}/${step}`,
        headers: bearer(admin.token),
        ...(step === 'resolve'
          ? {
              payload: {
                outcomes: event.options.map((o, i) => ({ optionId: o.id, outcome: i === 0 ? 'YES' : 'NO' })),
              },
            }
          : {}),
      });
      expect(res.statusCode, res.body).toBe(200);
    }

    const res = await t.app.inject({ url: '/api/me/trades/export', headers: bearer(user.token) });
    expect(res.statusCode).toBe(200);
    const lines: Record<string, string>[] = parse(res.body, { columns: true });
    expect(lines.map((l) => l.record)).toEqual([
      'trade',
      'conversion',
      'conversion',
      'settlement',
      'settlement',
    ]);
    expect(lines[1]).toMatchObject({
      recordId: split.json().id,
      option: 'Home',
      side: 'YES',
      action: 'BUY',
      quantity: '2',
      orderKind: 'split',
      cashCents: '-200',
    });
    expect(lines[2]).toMatchObject({ option: 'Away', cashCents: '' });
    const settled = lines.filter((l) => l.record === 'settlement');
    expect(settled.map((l) => [l.option, l.outcome, l.quantity, l.cashCents])).toEqual([
      ['Home', 'YES', '5', '500'],
      ['Away', 'NO', '2', '0'],
    ]);
    const times = lines.map((l) => Date.parse(l.createdAt!));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});
