import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { createMarket, limitOrder, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser } from '../../support/factories.js';

describe('GET /api/me/settlements', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('tells each holder what settlement paid, once their positions have left the portfolio', async () => {
    const admin = await newAdmin(t.app);
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'India' }, { label: 'Australia' }],
    });
    const other = await createMarket(t.app, admin.token, { options: [{ label: 'Elsewhere' }] });
    const [india, australia] = market.options;
    const [yes, no] = await Promise.all([newUser(t.app), newUser(t.app)]);
    await limitOrder(t.app, no.token, {
      optionId: india!.id,
      side: 'NO',
      action: 'BUY',
      quantity: 20,
      price: 45,
    });
    await marketTrade(t.app, yes.token, {
      optionId: india!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 20,
      price: 55,
    });
    await limitOrder(t.app, no.token, {
      optionId: other.options[0]!.id,
      side: 'NO',
      action: 'BUY',
      quantity: 1,
      price: 50,
    });
    await marketTrade(t.app, yes.token, {
      optionId: other.options[0]!.id,
      side: 'YES',
      action: 'BUY',
      quantity: 1,
      price: 50,
    });
    for (const step of ['close', 'resolve', 'settle']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/admin/events/${market.id}/${step}`,
        headers: bearer(admin.token),
        ...(step === 'resolve'
          ? {
              payload: {
                outcomes: [
                  { optionId: india!.id, outcome: 'YES' },
                  { optionId: australia!.id, outcome: 'NO' },
                ],
              },
            }
          : {}),
      });
      expect(res.statusCode).toBe(200);
    }

    const settlements = (token: string, query = '') =>
      t.app.inject({ url: `/api/me/settlements${query}`, headers: bearer(token) });
    const winner = await settlements(yes.token, `?eventSlug=${market.slug}`);
    expect(winner.statusCode).toBe(200);
    expect(winner.json()).toEqual({
      data: [
        {
          id: expect.any(String),
          eventSlug: market.slug,
          eventTitle: expect.any(String),
          optionId: india!.id,
          optionLabel: 'India',
          side: 'YES',
          outcome: 'YES',
          quantity: 20,
          payoutCents: 2000,
          pnlCents: 2000 - 20 * 55,
          settledAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });
    expect((await settlements(no.token)).json().data).toMatchObject([
      { optionLabel: 'India', side: 'NO', outcome: 'YES', quantity: 20, payoutCents: 0, pnlCents: -20 * 45 },
    ]);
    expect((await settlements(yes.token, '?eventSlug=no-such-market')).json().data).toEqual([]);
    expect((await t.app.inject({ url: '/api/me/settlements' })).statusCode).toBe(401);
  });
});
