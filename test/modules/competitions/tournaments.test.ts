import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent, type TestEvent } from '../../support/markets.js';

let t: TestApp;
let admin: TestUser;
let user: TestUser;
let event: TestEvent;
let counter = 0;

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
  user = await newUser(t.app);
  event = await insertEvent(t.database);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

const hoursFromNow = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

function tournament(fields: Record<string, unknown> = {}): Record<string, unknown> & { slug: string } {
  counter += 1;
  return {
    slug: `cup-${counter}-${Date.now().toString(36)}`,
    title: `Cup ${counter}`,
    description: 'Trade the week',
    startsAt: hoursFromNow(-1),
    endsAt: hoursFromNow(24),
    eventSlugs: [event.slug],
    prizes: [10_000, 5_000, 1_000],
    ...fields,
  };
}

function createTournament(payload: Record<string, unknown>, as = admin) {
  return t.app.inject({ method: 'POST', url: '/api/admin/tournaments', headers: bearer(as.token), payload });
}

function join(slug: string, as: TestUser) {
  return t.app.inject({ method: 'POST', url: `/api/tournaments/${slug}/join`, headers: bearer(as.token) });
}

describe('creating tournaments', () => {
  it('creates a tournament with its markets and prizes', async () => {
    const body = tournament({ entryClosesAt: hoursFromNow(12) });
    const res = await createTournament(body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      slug: body.slug,
      title: body.title,
      description: 'Trade the week',
      status: 'active',
      prizes: [10_000, 5_000, 1_000],
      prizePoolCents: 16_000,
      events: [{ slug: event.slug }],
      participants: 0,
      entryClosesAt: body.entryClosesAt,
    });
  });

  it('is for admins only', async () => {
    expect((await createTournament(tournament(), user)).statusCode).toBe(403);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/admin/tournaments', payload: tournament() }))
        .statusCode,
    ).toBe(401);
  });

  it.each([
    [{ endsAt: hoursFromNow(-2) }, 'body.endsAt'],
    [{ startsAt: hoursFromNow(30) }, 'body.endsAt'],
    [{ entryClosesAt: hoursFromNow(48) }, 'body.entryClosesAt'],
    [{ eventSlugs: ['no-such-market'] }, 'body.eventSlugs'],
    [{ eventSlugs: [] }, 'body.eventSlugs'],
    [{ prizes: [0] }, 'body.prizes.0'],
    [{ prizes: [-5] }, 'body.prizes.0'],
    [{ slug: 'Bad Slug' }, 'body.slug'],
    [{ title: '   ' }, 'body.title'],
    [{ startsAt: 'monday' }, 'body.startsAt'],
  ])('rejects %j with a 400 naming the field', async (fields, field) => {
    const res = await createTournament(tournament(fields));
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a slug in use (409 SLUG_TAKEN)', async () => {
    const body = tournament();
    expect((await createTournament(body)).statusCode).toBe(201);
    const again = await createTournament({ ...body, title: 'Another' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('SLUG_TAKEN');
  });
});

describe('listing and reading', () => {
  it('lists active and upcoming tournaments, soonest start first, without ended ones', async () => {
    const upcoming = tournament({ startsAt: hoursFromNow(2), endsAt: hoursFromNow(5) });
    const active = tournament();
    await createTournament(upcoming);
    await createTournament(active);
    const ended = tournament();
    await createTournament(ended);
    await t.database.db
      .updateTable('tournaments')
      .set({ ends_at: sql<Date>`now()`, entry_closes_at: sql<Date>`now()` })
      .where('slug', '=', ended.slug)
      .execute();
    const res = await t.app.inject({ url: '/api/tournaments?limit=200' });
    expect(res.statusCode).toBe(200);
    const slugs = res.json().data.map((x: { slug: string }) => x.slug);
    expect(slugs).toContain(upcoming.slug);
    expect(slugs).toContain(active.slug);
    expect(slugs).not.toContain(ended.slug);
    expect(slugs.indexOf(active.slug)).toBeLessThan(slugs.indexOf(upcoming.slug));
    const statuses = Object.fromEntries(
      res.json().data.map((x: { slug: string; status: string }) => [x.slug, x.status]),
    );
    expect(statuses[upcoming.slug]).toBe('upcoming');
    expect(statuses[active.slug]).toBe('active');
    const detail = (await t.app.inject({ url: `/api/tournaments/${ended.slug}` })).json();
    expect(detail.status).toBe('scoring');
    const page = await t.app.inject({ url: '/api/tournaments?limit=1' });
    expect(page.json().data).toHaveLength(1);
    expect(page.json().nextCursor).not.toBeNull();
    const next = await t.app.inject({ url: `/api/tournaments?limit=1&cursor=${page.json().nextCursor}` });
    expect(next.json().data[0].slug).not.toBe(page.json().data[0].slug);
  });

  it('shows a tournament with its scoring rule and an empty leaderboard; 404 for unknown', async () => {
    const body = tournament();
    await createTournament(body);
    const res = await t.app.inject({ url: `/api/tournaments/${body.slug}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ slug: body.slug, joined: false, leaderboard: [] });
    expect(res.json().scoring).toMatch(/Return on the trades/);
    expect((await t.app.inject({ url: '/api/tournaments/no-such-cup' })).statusCode).toBe(404);
  });
});

describe('joining', () => {
  it('joins once (409 ALREADY_JOINED) and shows the entrant unranked until they trade', async () => {
    const body = tournament();
    await createTournament(body);
    const res = await join(body.slug, user);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ slug: body.slug, joined: true });
    const again = await join(body.slug, user);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('ALREADY_JOINED');
    const detail = (
      await t.app.inject({ url: `/api/tournaments/${body.slug}`, headers: bearer(user.token) })
    ).json();
    expect(detail).toMatchObject({ joined: true, participants: 1 });
    expect(detail.leaderboard).toEqual([
      {
        rank: null,
        userId: user.id,
        username: user.username,
        trades: 0,
        costCents: 0,
        pnlCents: 0,
        returnBps: 0,
        prizeCents: 0,
      },
    ]);
  });

  it('counts one entry when the same user joins twice at once', async () => {
    const body = tournament();
    await createTournament(body);
    const someone = await newUser(t.app);
    const results = await Promise.all([join(body.slug, someone), join(body.slug, someone)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await t.app.inject({ url: `/api/tournaments/${body.slug}` })).json().participants).toBe(1);
  });

  it('allows joining an upcoming tournament and refuses after entries close (409 TOURNAMENT_CLOSED)', async () => {
    const upcoming = tournament({ startsAt: hoursFromNow(1), endsAt: hoursFromNow(3) });
    await createTournament(upcoming);
    expect((await join(upcoming.slug, user)).statusCode).toBe(200);
    const closing = tournament({ entryClosesAt: hoursFromNow(1) });
    await createTournament(closing);
    await t.database.db
      .updateTable('tournaments')
      .set({ entry_closes_at: sql<Date>`now()` })
      .where('slug', '=', closing.slug)
      .execute();
    const closed = await join(closing.slug, user);
    expect(closed.statusCode).toBe(409);
    expect(closed.json().code).toBe('TOURNAMENT_CLOSED');
    expect((await join('no-such-cup', user)).statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/tournaments/${upcoming.slug}/join` })).statusCode,
    ).toBe(401);
  });

  it('finishes a tournament nobody traded in without paying anything', async () => {
    const body = tournament({ prizes: [1_000] });
    await createTournament(body);
    await join(body.slug, user);
    await t.database.db
      .updateTable('tournaments')
      .set({ ends_at: sql<Date>`now()`, entry_closes_at: sql<Date>`now()` })
      .where('slug', '=', body.slug)
      .execute();
    const cashBefore = (await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).json()
      .balance;
    expect(await t.app.jobs.runNow('tournaments.finish')).toBeGreaterThanOrEqual(1);
    const detail = (await t.app.inject({ url: `/api/tournaments/${body.slug}` })).json();
    expect(detail.status).toBe('finished');
    expect(detail.leaderboard).toEqual([
      expect.objectContaining({ userId: user.id, rank: null, prizeCents: 0 }),
    ]);
    const cashAfter = (await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).json()
      .balance;
    expect(cashAfter).toEqual(cashBefore);
  });
});

describe('editing', () => {
  function edit(slug: string, payload: Record<string, unknown>, as = admin) {
    return t.app.inject({
      method: 'PATCH',
      url: `/api/admin/tournaments/${slug}`,
      headers: bearer(as.token),
      payload,
    });
  }

  it('changes anything of an upcoming tournament, checked as at creation', async () => {
    const other = await insertEvent(t.database);
    const body = tournament({ startsAt: hoursFromNow(2), endsAt: hoursFromNow(5) });
    await createTournament(body);
    const res = await edit(body.slug, {
      title: 'Cup of the week',
      startsAt: hoursFromNow(3),
      endsAt: hoursFromNow(30),
      eventSlugs: [event.slug, other.slug],
      prizes: [2_000],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      title: 'Cup of the week',
      description: 'Trade the week',
      status: 'upcoming',
      prizes: [2_000],
      prizePoolCents: 2_000,
    });
    expect(
      res
        .json()
        .events.map((e: { slug: string }) => e.slug)
        .sort(),
    ).toEqual([event.slug, other.slug].sort());
    // The entry deadline was the end, so it moved with it.
    expect(res.json().entryClosesAt).toBe(res.json().endsAt);
    expect((await t.app.inject({ url: `/api/tournaments/${body.slug}` })).json().title).toBe(
      'Cup of the week',
    );

    for (const [payload, field] of [
      [{ endsAt: hoursFromNow(1) }, 'body.endsAt'],
      [{ entryClosesAt: hoursFromNow(40) }, 'body.entryClosesAt'],
      [{ eventSlugs: ['no-such-market'] }, 'body.eventSlugs'],
      [{}, 'body'],
      [{ slug: 'renamed' }, 'body'],
    ] as const) {
      const refused = await edit(body.slug, payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(refused.json().code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(refused.json().details)).toContain(field);
    }
    expect((await t.app.inject({ url: `/api/tournaments/${body.slug}` })).json().prizes).toEqual([2_000]);
  });

  it('once started, moves the end and raises prizes but keeps the start, the markets and every prize', async () => {
    const body = tournament({ prizes: [1_000, 500] });
    await createTournament(body);
    await join(body.slug, user);
    const moved = await edit(body.slug, { endsAt: hoursFromNow(48), prizes: [1_500, 500, 100] });
    expect(moved.statusCode).toBe(200);
    expect(moved.json()).toMatchObject({ status: 'active', prizes: [1_500, 500, 100], participants: 1 });
    expect(Date.parse(moved.json().endsAt)).toBeGreaterThan(Date.now() + 47 * 3_600_000);
    // The same markets, named again, are not a change.
    expect((await edit(body.slug, { eventSlugs: [event.slug], description: 'New rules' })).statusCode).toBe(
      200,
    );

    const other = await insertEvent(t.database);
    for (const payload of [
      { startsAt: hoursFromNow(-5) },
      { eventSlugs: [event.slug, other.slug] },
      { prizes: [1_000, 500, 100] },
      { prizes: [1_500] },
    ]) {
      const refused = await edit(body.slug, payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(409);
      expect(refused.json().code).toBe('TOURNAMENT_STARTED');
    }
    const detail = (await t.app.inject({ url: `/api/tournaments/${body.slug}` })).json();
    expect(detail).toMatchObject({
      prizes: [1_500, 500, 100],
      description: 'New rules',
      events: [{ slug: event.slug }],
    });
  });

  it('refuses any edit once the window is over, and to non-admins; 404 for an unknown tournament', async () => {
    const body = tournament();
    await createTournament(body);
    expect((await edit(body.slug, { title: 'Mine now' }, user)).statusCode).toBe(403);
    await t.database.db
      .updateTable('tournaments')
      .set({ ends_at: sql<Date>`now()`, entry_closes_at: sql<Date>`now()` })
      .where('slug', '=', body.slug)
      .execute();
    const ended = await edit(body.slug, { endsAt: hoursFromNow(24) });
    expect(ended.statusCode).toBe(409);
    expect(ended.json().code).toBe('TOURNAMENT_ENDED');
    expect((await edit('no-such-cup', { title: 'x' })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/tournaments/${body.slug}` })).json().status).toBe('scoring');
  });
});
