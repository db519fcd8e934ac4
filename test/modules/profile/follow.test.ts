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

const follow = (user: TestUser, id: string) =>
  t.app.inject({ method: 'POST', url: `/api/follow/${id}`, headers: bearer(user.token) });
const unfollow = (user: TestUser, id: string) =>
  t.app.inject({ method: 'DELETE', url: `/api/follow/${id}`, headers: bearer(user.token) });
const people = (user: TestUser, which: 'following' | 'followers', query = '') =>
  t.app.inject({ url: `/api/me/${which}${query}`, headers: bearer(user.token) });

async function followNotices(user: TestUser) {
  const feed = await t.app.inject({ url: '/api/me/notifications', headers: bearer(user.token) });
  return feed.json().data.filter((n: { type: string }) => n.type === 'social.follow');
}

describe('follow', () => {
  it('needs authentication', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/follow/1' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/follow/1' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/me/following' })).statusCode).toBe(401);
  });

  it('follows once, tells the followed user once, and is idempotent', async () => {
    const alice = await newUser(t.app);
    const bob = await newUser(t.app);
    const first = await follow(alice, bob.id);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      userId: bob.id,
      username: bob.username,
      following: true,
      followerCount: 1,
    });
    const again = await follow(alice, bob.id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());

    const notices = await followNotices(bob);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ data: { followerId: alice.id, username: alice.username } });
    expect(notices[0].body).toContain(alice.username);
  });

  it('lists following and followers, newest first, paginated', async () => {
    const star = await newUser(t.app);
    const fans = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    for (const fan of fans) await follow(fan, star.id);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      headers: bearer(fans[2]!.token),
      payload: { displayName: 'Third Fan' },
    });
    const page1 = (await people(star, 'followers', '?limit=2')).json();
    const page2 = (await people(star, 'followers', `?limit=2&cursor=${page1.nextCursor}`)).json();
    expect([...page1.data, ...page2.data].map((p: { userId: string }) => p.userId)).toEqual(
      fans.map((f) => f.id).reverse(),
    );
    expect(page1.data[0]).toMatchObject({
      username: fans[2]!.username,
      displayName: 'Third Fan',
      avatarUrl: null,
    });
    expect(page2.nextCursor).toBeNull();
    const following = (await people(fans[0]!, 'following')).json();
    expect(following.data.map((p: { userId: string }) => p.userId)).toEqual([star.id]);
  });

  it('unfollows, harmlessly when not following, and a new follow notifies again', async () => {
    const alice = await newUser(t.app);
    const bob = await newUser(t.app);
    await follow(alice, bob.id);
    expect((await unfollow(alice, bob.id)).statusCode).toBe(204);
    expect((await unfollow(alice, bob.id)).statusCode).toBe(204);
    expect((await people(bob, 'followers')).json().data).toEqual([]);
    expect((await follow(alice, bob.id)).json().followerCount).toBe(1);
    expect(await followNotices(bob)).toHaveLength(2);
  });

  it('refuses to follow yourself with 400 and an unknown user with 404', async () => {
    const alice = await newUser(t.app);
    const self = await follow(alice, alice.id);
    expect(self.statusCode).toBe(400);
    expect(self.json().details).toEqual([{ field: 'params.userId', message: 'is your own id' }]);
    expect((await unfollow(alice, alice.id)).statusCode).toBe(400);
    expect((await follow(alice, '999999999')).statusCode).toBe(404);
    expect((await unfollow(alice, '999999999')).statusCode).toBe(404);
    expect((await follow(alice, 'bob')).statusCode).toBe(400);
  });

  it('keeps one follow and one notification when the same follow races', async () => {
    const alice = await newUser(t.app);
    const bob = await newUser(t.app);
    const results = await Promise.all([1, 2, 3].map(() => follow(alice, bob.id)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 201]);
    expect(await followNotices(bob)).toHaveLength(1);
  });

  it('does not notify a user who turned social notifications off', async () => {
    const alice = await newUser(t.app);
    const quiet = await newUser(t.app);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      headers: bearer(quiet.token),
      payload: { notifications: { social: false } },
    });
    expect((await follow(alice, quiet.id)).statusCode).toBe(201);
    expect(await followNotices(quiet)).toEqual([]);
  });
});
