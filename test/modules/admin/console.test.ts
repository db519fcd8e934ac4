import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket, marketTrade } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function cash(user: TestUser): Promise<number> {
  const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) });
  return me.json().balance.cashCents;
}

function adminCall(method: 'GET' | 'POST', url: string, payload?: object) {
  return t.app.inject({ method, url, headers: bearer(admin.token), ...(payload ? { payload } : {}) });
}

describe('settlement preview', () => {
  it('says how much settling pays to how many holders, and settling pays exactly that', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [
        { label: 'Home', liquidityCents: 20_000 },
        { label: 'Away', liquidityCents: 20_000 },
      ],
    });
    const [home, away] = market.options.map((o) => o.id) as [string, string];
    const [ann, bob] = [await newUser(t.app), await newUser(t.app)];
    const order = { action: 'BUY' as const, quantity: 10, price: 99 };
    expect((await marketTrade(t.app, ann.token, { ...order, optionId: home, side: 'YES' })).statusCode).toBe(
      201,
    );
    expect((await marketTrade(t.app, bob.token, { ...order, optionId: home, side: 'NO' })).statusCode).toBe(
      201,
    );
    expect((await marketTrade(t.app, bob.token, { ...order, optionId: away, side: 'NO' })).statusCode).toBe(
      201,
    );

    const early = await adminCall('GET', `/api/admin/events/${market.id}/settlement-preview`);
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe('INVALID_TRANSITION');

    const resolved = await adminCall('POST', `/api/admin/events/${market.id}/resolve`, {
      outcomes: [
        { optionId: home, outcome: 'YES' },
        { optionId: away, outcome: 'NO' },
      ],
    });
    expect(resolved.statusCode).toBe(200);
    const preview = await adminCall('GET', `/api/admin/events/${market.id}/settlement-preview`);
    expect(preview.statusCode).toBe(200);
    const body = preview.json();
    // Ann's 10 Home YES and Bob's 10 Away NO win 100 each; Bob's Home NO loses.
    expect(body).toMatchObject({ eventId: market.id, holders: 2, payoutCents: 2000, disputePending: false });
    expect(body.options).toEqual([
      expect.objectContaining({
        optionId: home,
        label: 'Home',
        outcome: 'YES',
        holders: 2,
        payoutCents: 1000,
      }),
      expect.objectContaining({
        optionId: away,
        label: 'Away',
        outcome: 'NO',
        holders: 1,
        payoutCents: 1000,
      }),
    ]);

    const before = (await cash(ann)) + (await cash(bob));
    expect((await adminCall('POST', `/api/admin/events/${market.id}/settle`)).statusCode).toBe(200);
    expect((await cash(ann)) + (await cash(bob)) - before).toBe(body.payoutCents);
  });

  it('answers 404 for an unknown event and 400 for a malformed id', async () => {
    expect((await adminCall('GET', '/api/admin/events/999999/settlement-preview')).statusCode).toBe(404);
    expect((await adminCall('GET', '/api/admin/events/x/settlement-preview')).statusCode).toBe(400);
  });
});

describe('ledger audit', () => {
  it('reports every invariant holding, and refuses a trader', async () => {
    const res = await adminCall('GET', '/api/admin/audit');
    expect(res.statusCode).toBe(200);
    expect(res.json().ok).toBe(true);
    expect(res.json().invariants).toHaveLength(9);
    for (const invariant of res.json().invariants)
      expect(invariant).toMatchObject({ ok: true, violations: [] });
    const trader = await newUser(t.app);
    const refused = await t.app.inject({ url: '/api/admin/audit', headers: bearer(trader.token) });
    expect(refused.statusCode).toBe(403);
  });

  it('names a trader whose kept totals no longer equal their trades', async () => {
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Rain', liquidityCents: 20_000 }],
    });
    const trader = await newUser(t.app);
    const optionId = market.options[0]?.id as string;
    const order = { optionId, side: 'YES' as const, action: 'BUY' as const, quantity: 3, price: 99 };
    expect((await marketTrade(t.app, trader.token, order)).statusCode).toBe(201);
    const totals = () =>
      t.database.db.selectFrom('trader_totals').selectAll().where('user_id', '=', Number(trader.id));
    const kept = await totals().executeTakeFirstOrThrow();
    expect(Number(kept.trades)).toBeGreaterThan(0);
    expect(Number(kept.volume_cents)).toBeGreaterThan(0);

    const keptTrades = (trades: number) =>
      t.database.db
        .updateTable('trader_totals')
        .set({ trades })
        .where('user_id', '=', Number(trader.id))
        .execute();
    await keptTrades(Number(kept.trades) + 1);
    try {
      const res = await adminCall('GET', '/api/admin/audit');
      expect(res.json().ok).toBe(false);
      const broken = res.json().invariants.find((i: { invariant: string }) => i.invariant.startsWith('8.'));
      expect(broken.violations).toEqual([
        expect.stringContaining(`user ${trader.id}: kept ${Number(kept.trades) + 1}/`),
      ]);
    } finally {
      await keptTrades(Number(kept.trades));
    }
    expect((await adminCall('GET', '/api/admin/audit')).json().ok).toBe(true);
  });
});

describe('editing the options of a draft', () => {
  it('gives a draft option house liquidity, which then trades; refused once the event is open', async () => {
    const draft = await createMarket(t.app, admin.token, { options: [{ label: 'Yes' }], open: false });
    const optionId = draft.options[0]?.id as string;
    const other = await createMarket(t.app, admin.token, { options: [{ label: 'Other' }], open: false });
    const url = `/api/admin/events/${draft.id}/options/${optionId}`;
    const patch = (path: string, payload: object) =>
      t.app.inject({ method: 'PATCH', url: path, headers: bearer(admin.token), payload });

    const edited = await patch(url, { label: 'Rain', liquidityCents: 20_000, initialPriceCents: 30 });
    expect(edited.statusCode).toBe(200);
    expect(edited.json().options[0]).toMatchObject({
      label: 'Rain',
      houseLiquidityCents: 20_000,
      yesPriceCents: 30,
    });
    expect((await patch(url, {})).statusCode).toBe(400);
    expect(
      (await patch(`/api/admin/events/${other.id}/options/${optionId}`, { label: 'x' })).statusCode,
    ).toBe(404);

    expect((await adminCall('POST', `/api/admin/events/${draft.id}/open`)).statusCode).toBe(200);
    const trader = await newUser(t.app);
    const bought = await marketTrade(t.app, trader.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 5,
      price: 40,
    });
    expect(bought.statusCode).toBe(201);
    expect(bought.json().filledQuantity).toBe(5);
    const late = await patch(url, { liquidityCents: 0 });
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe('INVALID_TRANSITION');
  });
});
