import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const feed = (user: TestUser, query = '') =>
  t.app.inject({ url: `/api/me/notifications${query}`, headers: bearer(user.token) });
const mark = (user: TestUser, payload: unknown) =>
  t.app.inject({
    method: 'POST',
    url: '/api/me/notifications',
    headers: bearer(user.token),
    payload: payload as object,
  });

/** Gives a user `count` notifications, oldest first, by having that many new users follow them. */
async function withNotifications(count: number): Promise<TestUser> {
  const user = await newUser(t.app);
  for (let i = 0; i < count; i++) {
    const follower = await newUser(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/follow/${user.id}`,
      headers: bearer(follower.token),
    });
    expect(res.statusCode).toBe(201);
  }
  return user;
}

describe('GET /api/me/notifications', () => {
  it('needs authentication', async () => {
    const res = await t.app.inject({ url: '/api/me/notifications' });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHENTICATED');
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/me/notifications', payload: { markAllRead: true } }))
        .statusCode,
    ).toBe(401);
  });

  it('is empty for a new user', async () => {
    const user = await newUser(t.app);
    expect((await feed(user)).json()).toEqual({ data: [], nextCursor: null, unreadCount: 0 });
  });

  it('pages through the feed newest first with a stable cursor', async () => {
    const user = await withNotifications(5);
    const all = (await feed(user)).json();
    expect(all.data).toHaveLength(5);
    expect(all.unreadCount).toBe(5);
    const ids = all.data.map((n: { id: string }) => Number(n.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(all.data[0]).toMatchObject({ type: 'social.follow', title: 'New follower', read: false });
    expect(Number.isNaN(Date.parse(all.data[0].createdAt))).toBe(false);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { data: { id: string }[]; nextCursor: string | null; unreadCount: number } = (
        await feed(user, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      expect(page.data.length).toBeLessThanOrEqual(2);
      expect(page.unreadCount).toBe(5);
      seen.push(...page.data.map((n: { id: string }) => n.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.data.map((n: { id: string }) => n.id));
  });

  it.each(['?limit=0', '?limit=201', '?limit=abc', '?cursor=not-a-cursor', '?unread=maybe'])(
    'rejects %s with 400',
    async (query) => {
      const user = await newUser(t.app);
      const res = await feed(user, query);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    },
  );
});

describe('POST /api/me/notifications', () => {
  it('marks one notification read by id, once', async () => {
    const user = await withNotifications(3);
    const [newest, middle] = (await feed(user)).json().data;
    const first = await mark(user, { id: middle.id });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ marked: 1, unreadCount: 2 });
    expect((await mark(user, { id: middle.id })).json()).toEqual({ marked: 0, unreadCount: 2 });

    const after = (await feed(user)).json();
    expect(after.data.map((n: { read: boolean }) => n.read)).toEqual([false, true, false]);
    const unread = (await feed(user, '?unread=true')).json();
    expect(unread.data.map((n: { id: string }) => n.id)).not.toContain(middle.id);
    expect(unread.data.map((n: { id: string }) => n.id)).toContain(newest.id);
  });

  it('marks everything read with markAllRead', async () => {
    const user = await withNotifications(4);
    await mark(user, { id: (await feed(user)).json().data[0].id });
    const res = await mark(user, { markAllRead: true });
    expect(res.json()).toEqual({ marked: 3, unreadCount: 0 });
    expect((await mark(user, { markAllRead: true })).json()).toEqual({ marked: 0, unreadCount: 0 });
    const after = (await feed(user)).json();
    expect(after.unreadCount).toBe(0);
    expect(after.data.every((n: { read: boolean }) => n.read)).toBe(true);
    expect((await feed(user, '?unread=true')).json().data).toEqual([]);
  });

  it("answers 404 for another user's notification and leaves it unread", async () => {
    const alice = await withNotifications(1);
    const bob = await newUser(t.app);
    const alicesId = (await feed(alice)).json().data[0].id;
    const res = await mark(bob, { id: alicesId });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('NOT_FOUND');
    expect((await feed(alice)).json().unreadCount).toBe(1);
    expect((await mark(bob, { markAllRead: true })).json()).toEqual({ marked: 0, unreadCount: 0 });
    expect((await feed(alice)).json().unreadCount).toBe(1);
    expect((await feed(bob)).json().data).toEqual([]);
  });

  it('answers 404 for an id that does not exist', async () => {
    const user = await newUser(t.app);
    expect((await mark(user, { id: '999999999' })).statusCode).toBe(404);
  });

  it.each([{}, { markAllRead: false }, { id: 'abc' }, { id: '1', markAllRead: true }, { all: true }])(
    'rejects %j with 400',
    async (payload) => {
      const user = await newUser(t.app);
      const res = await mark(user, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    },
  );
});
