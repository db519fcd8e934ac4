import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { insertEvent, type TestEvent } from '../../support/markets.js';

let t: TestApp;
let event: TestEvent;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  event = await insertEvent(t.database);
  admin = await newAdmin(t.app);
  alice = await newUser(t.app);
  bob = await newUser(t.app);
});
afterAll(async () => {
  await t.close();
});

async function createPost(user: TestUser, text = 'something to report') {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/posts',
    headers: bearer(user.token),
    payload: { eventSlug: event.slug, text },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string };
}

async function createComment(user: TestUser, postId: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/posts/${postId}/comments`,
    headers: bearer(user.token),
    payload: { text: 'a comment' },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string };
}

function report(user: TestUser, targetType: string, targetId: string, reason = 'spam') {
  return t.app.inject({
    method: 'POST',
    url: '/api/reports',
    headers: bearer(user.token),
    payload: { targetType, targetId, reason },
  });
}

function resolve(reportId: string, payload: Record<string, unknown>, user = admin) {
  return t.app.inject({
    method: 'POST',
    url: `/api/admin/reports/${reportId}/resolve`,
    headers: bearer(user.token),
    payload,
  });
}

describe('reports', () => {
  it('files a report on a post, a comment and a user', async () => {
    const post = await createPost(alice);
    const comment = await createComment(alice, post.id);
    const onPost = await report(bob, 'POST', post.id, '  off-topic  ');
    expect(onPost.statusCode).toBe(201);
    expect(onPost.json()).toMatchObject({
      targetType: 'POST',
      targetId: post.id,
      reason: 'off-topic',
      status: 'open',
    });
    expect((await report(bob, 'COMMENT', comment.id)).statusCode).toBe(201);
    expect((await report(bob, 'USER', alice.id)).statusCode).toBe(201);
  });

  it('allows one open report per reporter and target (409 ALREADY_REPORTED), also when raced', async () => {
    const post = await createPost(alice);
    expect((await report(bob, 'POST', post.id)).statusCode).toBe(201);
    const again = await report(bob, 'POST', post.id, 'another reason');
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('ALREADY_REPORTED');
    expect((await report(admin, 'POST', post.id)).statusCode).toBe(201);

    const other = await createPost(alice);
    const raced = await Promise.all([report(bob, 'POST', other.id), report(bob, 'POST', other.id)]);
    expect(raced.map((res) => res.statusCode).sort()).toEqual([201, 409]);
  });

  it('rejects bad reports', async () => {
    expect((await report(bob, 'USER', bob.id)).statusCode).toBe(400);
    expect((await report(bob, 'POST', '999999')).statusCode).toBe(404);
    expect((await report(bob, 'COMMENT', '999999')).statusCode).toBe(404);
    expect((await report(bob, 'USER', '999999')).statusCode).toBe(404);
    const badType = await report(bob, 'EVENT', '1');
    expect(badType.statusCode).toBe(400);
    expect(badType.json().code).toBe('VALIDATION_FAILED');
    const blank = await report(bob, 'USER', alice.id, '   ');
    expect(blank.statusCode).toBe(400);
    expect(blank.json().details[0].field).toBe('body.reason');
    expect((await report(bob, 'USER', alice.id, 'x'.repeat(501))).statusCode).toBe(400);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/reports',
      payload: { targetType: 'USER', targetId: alice.id, reason: 'x' },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('admin moderation', () => {
  it('is for admins only', async () => {
    expect((await t.app.inject({ url: '/api/admin/reports' })).statusCode).toBe(401);
    const forbidden = await t.app.inject({ url: '/api/admin/reports', headers: bearer(bob.token) });
    expect(forbidden.statusCode).toBe(403);
    expect((await resolve('1', { action: 'dismiss' }, bob)).statusCode).toBe(403);
  });

  it('lists open reports with what they point at', async () => {
    const post = await createPost(alice, 'the reported words');
    const filed = (await report(bob, 'POST', post.id, 'rude')).json();
    const list = await t.app.inject({ url: '/api/admin/reports?limit=200', headers: bearer(admin.token) });
    expect(list.statusCode).toBe(200);
    const found = list.json().data.find((r: { id: string }) => r.id === filed.id);
    expect(found).toMatchObject({
      reason: 'rude',
      status: 'open',
      reporter: { id: bob.id, username: bob.username },
      target: { userId: alice.id, username: alice.username, text: 'the reported words', removed: false },
      resolutionNote: null,
      resolvedAt: null,
    });
    const page = await t.app.inject({ url: '/api/admin/reports?limit=1', headers: bearer(admin.token) });
    expect(page.json().data).toHaveLength(1);
    expect(page.json().nextCursor).not.toBeNull();
  });

  it('dismisses a report: content stays, the report is closed and can be filed again', async () => {
    const post = await createPost(alice);
    const filed = (await report(bob, 'POST', post.id)).json();
    const res = await resolve(filed.id, { action: 'dismiss', note: 'fine' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      report: { status: 'dismissed', resolutionNote: 'fine' },
      resolvedReports: 1,
    });
    expect((await t.app.inject({ url: `/api/posts/${post.id}` })).statusCode).toBe(200);
    const twice = await resolve(filed.id, { action: 'hide' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().code).toBe('REPORT_NOT_OPEN');
    expect((await report(bob, 'POST', post.id)).statusCode).toBe(201);
    const resolved = await t.app.inject({
      url: '/api/admin/reports?status=resolved&limit=200',
      headers: bearer(admin.token),
    });
    expect(resolved.json().data.map((r: { id: string }) => r.id)).toContain(filed.id);
  });

  it('hides a post from every public read, closes all its open reports and tells the author', async () => {
    const post = await createPost(alice, 'hide me');
    const comment = await createComment(bob, post.id);
    const first = (await report(bob, 'POST', post.id)).json();
    await report(admin, 'POST', post.id);
    const res = await resolve(first.id, { action: 'hide', note: 'abusive' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      report: { status: 'hidden', target: { removed: true } },
      resolvedReports: 2,
    });
    expect((await t.app.inject({ url: `/api/posts/${post.id}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/api/posts/${post.id}/comments` })).statusCode).toBe(404);
    const list = await t.app.inject({ url: `/api/posts?eventSlug=${event.slug}&limit=200` });
    expect(list.json().data.map((p: { id: string }) => p.id)).not.toContain(post.id);
    expect((await report(bob, 'COMMENT', comment.id)).statusCode).toBe(404);
    const feed = await t.app.inject({ url: '/api/me/notifications', headers: bearer(alice.token) });
    expect(feed.json().data).toContainEqual(
      expect.objectContaining({
        type: 'social.content_hidden',
        data: { targetType: 'POST', targetId: post.id },
      }),
    );
  });

  it('hides a comment', async () => {
    const post = await createPost(alice);
    const comment = await createComment(bob, post.id);
    const filed = (await report(alice, 'COMMENT', comment.id)).json();
    expect((await resolve(filed.id, { action: 'hide' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/posts/${post.id}/comments` })).json().data).toEqual([]);
    expect((await t.app.inject({ url: `/api/posts/${post.id}` })).json().commentCount).toBe(0);
  });

  it('cannot hide a user (400) and validates the action', async () => {
    const target = await newUser(t.app);
    const filed = (await report(bob, 'USER', target.id, 'cannot hide')).json();
    const hide = await resolve(filed.id, { action: 'hide' });
    expect(hide.statusCode).toBe(400);
    expect((await resolve(filed.id, { action: 'ban' })).statusCode).toBe(400);
    expect((await resolve(filed.id, {})).statusCode).toBe(400);
    expect((await resolve('999999', { action: 'dismiss' })).statusCode).toBe(404);
    expect((await resolve(filed.id, { action: 'dismiss' })).statusCode).toBe(200);
  });

  it('suspends a reported user: their session and API keys get 403 ACCOUNT_SUSPENDED', async () => {
    const troll = await newUser(t.app);
    const key = (
      await t.app.inject({
        method: 'POST',
        url: '/api/me/api-keys',
        headers: bearer(troll.token),
        payload: { name: 'bot' },
      })
    ).json().key as string;
    const filed = (await report(bob, 'USER', troll.id, 'trolling')).json();
    const res = await resolve(filed.id, { action: 'suspend' });
    expect(res.statusCode).toBe(200);
    expect(res.json().report).toMatchObject({ status: 'suspended', target: { removed: true } });
    for (const token of [troll.token, key]) {
      const blocked = await t.app.inject({
        method: 'POST',
        url: '/api/posts',
        headers: bearer(token),
        payload: { eventSlug: event.slug, text: 'still here?' },
      });
      expect(blocked.statusCode).toBe(403);
      expect(blocked.json().code).toBe('ACCOUNT_SUSPENDED');
    }
  });

  it('suspends the author of reported content and hides the content', async () => {
    const author = await newUser(t.app);
    const post = await createPost(author, 'scam link');
    const filed = (await report(bob, 'POST', post.id)).json();
    expect((await resolve(filed.id, { action: 'suspend' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/api/posts/${post.id}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(author.token) })).statusCode).toBe(403);
  });

  it('refuses to suspend an admin (409 CANNOT_SUSPEND_ADMIN)', async () => {
    const filed = (await report(bob, 'USER', admin.id)).json();
    const res = await resolve(filed.id, { action: 'suspend' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('CANNOT_SUSPEND_ADMIN');
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(admin.token) })).statusCode).toBe(200);
  });
});
