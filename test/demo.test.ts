import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/demo.js';
import { createTestApp, expectInvariants, type TestApp } from './support/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  const { markets, accounts, social, competitions } = t.app.services;
  await seedDemo({
    markets: markets.editing,
    accounts,
    discussion: social.discussion,
    tournaments: competitions.tournaments,
  });
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

describe('the demo catalogue', () => {
  it('has open markets, a running tournament on them and a discussion', async () => {
    const events = (await t.app.inject({ url: '/api/events' })).json();
    expect(events.data.length).toBe(5);
    expect(events.data.every((event: { status: string }) => event.status === 'open')).toBe(true);

    const tournaments = (await t.app.inject({ url: '/api/tournaments' })).json();
    expect(tournaments.data).toEqual([
      expect.objectContaining({ slug: 'cricket-and-economy-cup', status: 'active', participants: 2 }),
    ]);

    const posts = (await t.app.inject({ url: '/api/posts?eventSlug=ind-vs-aus-1st-odi' })).json();
    expect(posts.data).toHaveLength(2);
    expect(posts.data.map((post: { author: { username: string } }) => post.author.username).sort()).toEqual([
      'asha_k',
      'rohan_m',
    ]);
  });

  it('has its two "who wins" markets exclusive, their chances adding up, the IPL with a catch-all option', async () => {
    for (const slug of ['ind-vs-aus-1st-odi', 'ipl-2027-champion']) {
      const event = (await t.app.inject({ url: `/api/events/${slug}` })).json();
      expect(event.exclusive).toBe(true);
      expect(event.houseLiquidityCents).toBeGreaterThan(0);
      const chances = event.options.map((o: { probabilityBps: number }) => o.probabilityBps);
      expect(chances.reduce((sum: number, bps: number) => sum + bps, 0)).toBe(10_000);
      for (const option of event.options) expect(option.bestAskCents).not.toBeNull();
    }
    const ipl = (await t.app.inject({ url: '/api/events/ipl-2027-champion' })).json();
    expect(ipl.options.at(-1).label).toBe('Any other team');
    const odi = (await t.app.inject({ url: '/api/events/ind-vs-aus-1st-odi' })).json();
    expect(odi.options.map((o: { yesPriceCents: number }) => o.yesPriceCents)).toEqual([58, 42]);
  });

  it('offers copy trading by default', async () => {
    expect((await t.app.inject({ url: '/api/flags' })).json().copyTrading).toBe(true);
  });

  it('gives its traders passwords nobody knows', async () => {
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'asha.k@demo.predict.example', password: 'password' },
    });
    expect(login.statusCode).toBe(401);
  });
});
