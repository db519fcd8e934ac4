import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent, type TestEvent } from '../../support/markets.js';

let t: TestApp;
let event: TestEvent;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  event = await insertEvent(t.database, { title: 'Will it rain in Mumbai?' });
  alice = await newUser(t.app);
  bob = await newUser(t.app);
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function post(user: TestUser, text: string, eventSlug = event.slug) {
  return t.app.inject({
    method: 'POST',
    url: '/api/posts',
    headers: bearer(user.token),
    payload: { eventSlug, text },
  });
}

async function like(user: TestUser, postId: string) {
  return t.app.inject({ method: 'POST', url: `/api/posts/${postId}/like`, headers: bearer(user.token) });
}

async function notificationsOf(user: TestUser) {
  const res = await t.app.inject({ url: '/api/me/notifications', headers: bearer(user.token) });
  return res.json().data as { type: string; data: Record<string, string> }[];
}

describe('posts', () => {
  it('creates a post on a market and lists it newest first, publicly', async () => {
    const first = await post(alice, '  Rain looks likely  ');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      eventSlug: event.slug,
      eventTitle: 'Will it rain in Mumbai?',
      author: { id: alice.id, username: alice.username },
      text: 'Rain looks likely',
      likeCount: 0,
      commentCount: 0,
      likedByMe: false,
    });
    const second = await post(bob, 'Not a chance');
    const list = await t.app.inject({ url: `/api/posts?eventSlug=${event.slug}` });
    expect(list.statusCode).toBe(200);
    const ids = list.json().data.map((p: { id: string }) => p.id);
    expect(ids.indexOf(second.json().id)).toBeLessThan(ids.indexOf(first.json().id));
    const one = await t.app.inject({ url: `/api/posts/${first.json().id}` });
    expect(one.json().text).toBe('Rain looks likely');
  });

  it('returns markup exactly as sent, as inert JSON text', async () => {
    const text = '<script>alert("x")</script><img src=x onerror=alert(1)> & "quotes" \u2603';
    const created = await post(alice, text);
    expect(created.statusCode).toBe(201);
    expect(created.headers['content-type']).toMatch(/^application\/json/);
    expect(created.json().text).toBe(text);
    const read = await t.app.inject({ url: `/api/posts/${created.json().id}` });
    expect(read.headers['content-type']).toMatch(/^application\/json/);
    expect(read.json().text).toBe(text);

    const comment = await t.app.inject({
      method: 'POST',
      url: `/api/posts/${created.json().id}/comments`,
      headers: bearer(bob.token),
      payload: { text },
    });
    expect(comment.statusCode).toBe(201);
    expect(comment.json().text).toBe(text);
    const comments = await t.app.inject({ url: `/api/posts/${created.json().id}/comments` });
    expect(comments.headers['content-type']).toMatch(/^application\/json/);
    expect(comments.json().data[0].text).toBe(text);
  });

  it('paginates with a cursor and filters by author', async () => {
    const own = await insertEvent(t.database);
    const author = await newUser(t.app);
    for (const n of [1, 2, 3]) expect((await post(author, `post ${n}`, own.slug)).statusCode).toBe(201);
    const page1 = await t.app.inject({ url: `/api/posts?eventSlug=${own.slug}&limit=2` });
    expect(page1.json().data.map((p: { text: string }) => p.text)).toEqual(['post 3', 'post 2']);
    const page2 = await t.app.inject({
      url: `/api/posts?eventSlug=${own.slug}&limit=2&cursor=${page1.json().nextCursor}`,
    });
    expect(page2.json()).toMatchObject({ data: [{ text: 'post 1' }], nextCursor: null });
    const byAuthor = await t.app.inject({ url: `/api/posts?username=${author.username}` });
    expect(byAuthor.json().data).toHaveLength(3);
  });

  it.each([
    [{ eventSlug: 'x', text: '' }, 'body.text'],
    [{ eventSlug: 'x', text: '   \n\t ' }, 'body.text'],
    [{ eventSlug: 'x', text: 'a'.repeat(2001) }, 'body.text'],
    [{ eventSlug: 'x', text: 'nul \u0000 here' }, 'body.text'],
    [{ text: 'no event' }, 'body.eventSlug'],
    [{ eventSlug: 'x', text: 'hi', extra: 1 }, 'body.extra'],
  ])('rejects %j with a 400 naming the field', async (payload, field) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/posts',
      headers: bearer(alice.token),
      payload: { ...payload, eventSlug: 'eventSlug' in payload ? event.slug : undefined },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accepts exactly 2000 characters', async () => {
    expect((await post(alice, 'é'.repeat(2000))).statusCode).toBe(201);
  });

  it('404s an unknown or draft market, 401s without a key, 400s a bad cursor', async () => {
    expect((await post(alice, 'hello', 'no-such-market')).statusCode).toBe(404);
    const draft = await insertEvent(t.database, { status: 'draft' });
    expect((await post(alice, 'hello', draft.slug)).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/posts?eventSlug=${draft.slug}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/posts?username=nobody_here' })).statusCode).toBe(404);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/posts',
      payload: { eventSlug: event.slug, text: 'hi' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/posts?cursor=garbage' })).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/posts/999999' })).statusCode).toBe(404);
  });

  it('lets only the author delete a post; a deleted post is gone from every read', async () => {
    const created = (await post(alice, 'to be deleted')).json();
    const notMine = await t.app.inject({
      method: 'DELETE',
      url: `/api/posts/${created.id}`,
      headers: bearer(bob.token),
    });
    expect(notMine.statusCode).toBe(403);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/posts/${created.id}`,
      headers: bearer(alice.token),
    });
    expect(del.statusCode).toBe(204);
    expect((await t.app.inject({ url: `/api/posts/${created.id}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/posts/${created.id}/comments` })).statusCode).toBe(404);
    const list = await t.app.inject({ url: `/api/posts?eventSlug=${event.slug}&limit=200` });
    expect(list.json().data.map((p: { id: string }) => p.id)).not.toContain(created.id);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/posts/${created.id}`,
      headers: bearer(alice.token),
    });
    expect(again.statusCode).toBe(404);
    expect((await like(bob, created.id)).statusCode).toBe(404);
  });
});

describe('likes', () => {
  it('toggles, reports the new state and count, and notifies the author once per like (not self)', async () => {
    const created = (await post(alice, 'like me')).json();
    const liked = await like(bob, created.id);
    expect(liked.statusCode).toBe(200);
    expect(liked.json()).toEqual({ postId: created.id, liked: true, likeCount: 1 });
    const mine = await t.app.inject({ url: `/api/posts/${created.id}`, headers: bearer(bob.token) });
    expect(mine.json()).toMatchObject({ likeCount: 1, likedByMe: true });
    expect((await t.app.inject({ url: `/api/posts/${created.id}` })).json().likedByMe).toBe(false);

    const unliked = await like(bob, created.id);
    expect(unliked.json()).toEqual({ postId: created.id, liked: false, likeCount: 0 });

    const self = await like(alice, created.id);
    expect(self.json()).toMatchObject({ liked: true, likeCount: 1 });
    const likes = (await notificationsOf(alice)).filter(
      (n) => n.type === 'social.like' && n.data.postId === created.id,
    );
    expect(likes).toHaveLength(1);
    expect(likes[0]?.data.likedBy).toBe(bob.id);
  });

  it('respects an author who turned social notifications off', async () => {
    const quiet = await newUser(t.app);
    const off = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      headers: bearer(quiet.token),
      payload: { notifications: { social: false } },
    });
    expect(off.statusCode).toBe(200);
    const created = (await post(quiet, 'leave me be')).json();
    expect((await like(bob, created.id)).json().liked).toBe(true);
    await t.app.inject({
      method: 'POST',
      url: `/api/posts/${created.id}/comments`,
      headers: bearer(bob.token),
      payload: { text: 'hi' },
    });
    expect((await notificationsOf(quiet)).filter((n) => n.type.startsWith('social.'))).toEqual([]);
  });

  it('counts likes by many users sent at the same time', async () => {
    const created = (await post(alice, 'popular')).json();
    const users = await Promise.all(Array.from({ length: 8 }, () => newUser(t.app)));
    const results = await Promise.all(users.map((user) => like(user, created.id)));
    expect(results.every((res) => res.statusCode === 200 && res.json().liked === true)).toBe(true);
    expect(results.map((res) => res.json().likeCount).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    expect((await t.app.inject({ url: `/api/posts/${created.id}` })).json().likeCount).toBe(8);
  });

  it('counts right when two users like at once and when one user double-clicks', async () => {
    const created = (await post(alice, 'race')).json();
    const carol = await newUser(t.app);
    const both = await Promise.all([like(bob, created.id), like(carol, created.id)]);
    expect(both.map((res) => res.json().liked)).toEqual([true, true]);
    expect((await t.app.inject({ url: `/api/posts/${created.id}` })).json().likeCount).toBe(2);

    const double = await Promise.all([like(bob, created.id), like(bob, created.id)]);
    const states = double.map((res) => res.json());
    // Two toggles by one user apply one after the other: one unlikes, the other likes again.
    expect(states.map((s) => s.liked).sort()).toEqual([false, true]);
    expect(states.find((s) => !s.liked)?.likeCount).toBe(1);
    expect(states.find((s) => s.liked)?.likeCount).toBe(2);
    const after = await t.app.inject({ url: `/api/posts/${created.id}`, headers: bearer(bob.token) });
    expect(after.json()).toMatchObject({ likeCount: 2, likedByMe: true });
  });

  it('401s without a key and 404s an unknown post', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/posts/1/like' })).statusCode).toBe(401);
    expect((await like(bob, '999999')).statusCode).toBe(404);
    expect((await like(bob, 'abc')).statusCode).toBe(400);
  });
});

describe('comments', () => {
  it('adds comments oldest first, counts them and notifies the post author (not self)', async () => {
    const created = (await post(alice, 'discuss')).json();
    const c1 = await t.app.inject({
      method: 'POST',
      url: `/api/posts/${created.id}/comments`,
      headers: bearer(bob.token),
      payload: { text: ' first ' },
    });
    expect(c1.statusCode).toBe(201);
    expect(c1.json()).toMatchObject({
      postId: created.id,
      author: { username: bob.username },
      text: 'first',
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/posts/${created.id}/comments`,
      headers: bearer(alice.token),
      payload: { text: 'second' },
    });
    const list = await t.app.inject({ url: `/api/posts/${created.id}/comments?limit=1` });
    expect(list.json().data.map((c: { text: string }) => c.text)).toEqual(['first']);
    const rest = await t.app.inject({
      url: `/api/posts/${created.id}/comments?limit=1&cursor=${list.json().nextCursor}`,
    });
    expect(rest.json().data.map((c: { text: string }) => c.text)).toEqual(['second']);
    expect((await t.app.inject({ url: `/api/posts/${created.id}` })).json().commentCount).toBe(2);
    const comments = (await notificationsOf(alice)).filter(
      (n) => n.type === 'social.comment' && n.data.postId === created.id,
    );
    expect(comments).toHaveLength(1);
  });

  it('validates text, 404s an unknown post and 401s without a key', async () => {
    const created = (await post(alice, 'validate')).json();
    for (const text of ['', '   ', 'x'.repeat(1001)]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/posts/${created.id}/comments`,
        headers: bearer(bob.token),
        payload: { text },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].field).toBe('body.text');
    }
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/posts/999999/comments',
      headers: bearer(bob.token),
      payload: { text: 'hello' },
    });
    expect(missing.statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/posts/999999/comments' })).statusCode).toBe(404);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: `/api/posts/${created.id}/comments`,
      payload: { text: 'hello' },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('lets only the author delete a comment', async () => {
    const created = (await post(alice, 'comment deletion')).json();
    const comment = (
      await t.app.inject({
        method: 'POST',
        url: `/api/posts/${created.id}/comments`,
        headers: bearer(bob.token),
        payload: { text: 'mine' },
      })
    ).json();
    const notMine = await t.app.inject({
      method: 'DELETE',
      url: `/api/comments/${comment.id}`,
      headers: bearer(alice.token),
    });
    expect(notMine.statusCode).toBe(403);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/comments/${comment.id}`,
      headers: bearer(bob.token),
    });
    expect(del.statusCode).toBe(204);
    expect((await t.app.inject({ url: `/api/posts/${created.id}/comments` })).json().data).toEqual([]);
    expect((await t.app.inject({ url: `/api/posts/${created.id}` })).json().commentCount).toBe(0);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/comments/${comment.id}`,
      headers: bearer(bob.token),
    });
    expect(again.statusCode).toBe(404);
  });
});
