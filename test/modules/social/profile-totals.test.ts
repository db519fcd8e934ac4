import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServices, testServices } from '../../support/services.js';

/** A public profile's figures come from the totals the database keeps per trader (trader_totals). */
let t: TestServices;
beforeAll(async () => {
  t = await testServices();
});
afterAll(async () => {
  expect((await t.services.audit()).every((invariant) => invariant.ok)).toBe(true);
  await t.close();
});

describe('a public profile', () => {
  it('counts a new trader as nothing traded, and shows what the kept totals say', async () => {
    const { services, database } = t;
    const stamp = Date.now() % 100_000;
    const { user } = await services.accounts.register({
      email: `profile-${stamp}@example.com`,
      password: 'a long and unusual passphrase',
      username: `figures${stamp}`,
    });
    const username = user.username as string;
    expect((await services.social.profiles.profile(username)).stats).toMatchObject({
      trades: 0,
      volumeCents: 0,
      realizedPnlCents: 0,
    });

    // What the database keeps is what the profile shows (the audit proves the totals equal the rows).
    const totals = database.db.insertInto('trader_totals');
    await totals
      .values({ user_id: Number(user.id), trades: 3, volume_cents: 180, realized_pnl_cents: -20 })
      .execute();
    try {
      expect((await services.social.profiles.profile(username)).stats).toMatchObject({
        trades: 3,
        volumeCents: 180,
        realizedPnlCents: -20,
      });
    } finally {
      await database.db.deleteFrom('trader_totals').where('user_id', '=', Number(user.id)).execute();
    }
  });
});
