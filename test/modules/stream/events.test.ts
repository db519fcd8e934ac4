import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTwoInstances,
  createTestApp,
  createTwoInstances,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { createMarket } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { StreamTestClient, streamUrl } from '../../support/stream-client.js';

let db: TestDatabase;
let a: TestApp;
let b: TestApp;
let admin: TestUser;
let urlB: string;

beforeAll(async () => {
  ({ db, a, b } = await createTwoInstances());
  admin = await newAdmin(a.app);
  await streamUrl(a);
  urlB = await streamUrl(b);
});
afterAll(async () => {
  await closeTwoInstances({ db, a, b });
});

async function call(method: 'POST' | 'DELETE', url: string, token: string, payload?: object) {
  const res = await a.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : null;
}

/** Changes made on instance A reach a subscriber of instance B. */
describe('the event channel and the notifications of the user channel', () => {
  it('pushes a market’s status as it closes and resolves, and refuses drafts and unknown events', async () => {
    const market = await createMarket(a.app, admin.token);
    const watcher = await StreamTestClient.open(urlB);
    watcher.send({ op: 'subscribe', channel: `event:${market.id}` });
    await watcher.next((m) => m.type === 'subscribed' && m.channel === `event:${market.id}`);

    await call('POST', `/api/admin/events/${market.id}/close`, admin.token);
    expect(await watcher.next((m) => m.type === 'market')).toEqual({
      type: 'market',
      channel: `event:${market.id}`,
      eventId: market.id,
      status: 'closed',
    });
    await call('POST', `/api/admin/events/${market.id}/resolve`, admin.token, {
      outcomes: [{ optionId: market.options[0]!.id, outcome: 'NO' }],
    });
    expect(await watcher.next((m) => m.type === 'market')).toMatchObject({ status: 'resolved' });

    const draft = await createMarket(a.app, admin.token, { open: false });
    for (const channel of [`event:${draft.id}`, 'event:999999999']) {
      watcher.send({ op: 'subscribe', channel });
      expect(await watcher.next((m) => m.type === 'error' && m.channel === channel)).toMatchObject({
        code: 'NOT_FOUND',
      });
    }
    watcher.close();
  });

  it('never logs the token a browser passes in the stream’s query string', async () => {
    const lines: string[] = [];
    const logged = await createTestApp({
      database: db,
      env: { LOG_LEVEL: 'info' },
      logStream: { write: (line: string) => lines.push(line) },
    });
    try {
      const url = await streamUrl(logged);
      const client = await StreamTestClient.open(`${url}?token=${admin.token}`);
      client.send({ op: 'subscribe', channel: 'user' });
      await client.next((m) => m.type === 'subscribed');
      client.close();
      expect(lines.some((line) => line.includes('token=[redacted]'))).toBe(true);
      expect(lines.filter((line) => line.includes(admin.token))).toEqual([]);
    } finally {
      await logged.close();
    }
  });

  it('pushes every change to the discussion, and the author’s notifications on their user channel', async () => {
    const market = await createMarket(a.app, admin.token);
    const author = await newUser(a.app);
    const reader = await newUser(a.app);
    const watcher = await StreamTestClient.open(urlB);
    watcher.send({ op: 'subscribe', channel: `event:${market.id}` });
    await watcher.next((m) => m.type === 'subscribed');
    const own = await StreamTestClient.open(`${urlB}?token=${author.token}`);
    own.send({ op: 'subscribe', channel: 'user' });
    await own.next((m) => m.type === 'subscribed');

    const post = await call('POST', '/api/posts', author.token, { eventSlug: market.slug, text: 'Live?' });
    const discussion = (m: Record<string, unknown>) => m.type === 'discussion';
    expect(await watcher.next(discussion)).toEqual({
      type: 'discussion',
      channel: `event:${market.id}`,
      postId: post.id,
      change: 'created',
      likeCount: 0,
      commentCount: 0,
    });

    await call('POST', `/api/posts/${post.id}/like`, reader.token);
    expect(await watcher.next(discussion)).toMatchObject({
      change: 'updated',
      likeCount: 1,
      commentCount: 0,
    });
    const liked = await own.next((m) => m.type === 'notification');
    expect(liked.notification).toMatchObject({
      type: 'social.like',
      read: false,
      data: { postId: post.id, eventSlug: market.slug },
    });

    const comment = await call('POST', `/api/posts/${post.id}/comments`, reader.token, { text: 'Yes' });
    expect(await watcher.next(discussion)).toMatchObject({ likeCount: 1, commentCount: 1 });
    expect((await own.next((m) => m.type === 'notification')).notification).toMatchObject({
      type: 'social.comment',
      data: { eventSlug: market.slug },
    });
    await call('DELETE', `/api/comments/${comment.id}`, reader.token);
    expect(await watcher.next(discussion)).toMatchObject({ change: 'updated', commentCount: 0 });

    const report = await call('POST', '/api/reports', reader.token, {
      targetType: 'POST',
      targetId: post.id,
      reason: 'Spam',
    });
    await call('POST', `/api/admin/reports/${report.id}/resolve`, admin.token, { action: 'hide' });
    expect(await watcher.next(discussion)).toMatchObject({ postId: post.id, change: 'removed' });
    watcher.close();
    own.close();
  });

  it('pushes the feed items of a fill as the feed lists them: the same ids and times, both sides', async () => {
    const market = await createMarket(a.app, admin.token);
    const optionId = (market.options[0] as { id: string }).id;
    const [maker, taker] = [await newUser(a.app), await newUser(a.app)];
    const streams = await Promise.all(
      [maker, taker].map(async (user) => {
        const client = await StreamTestClient.open(`${urlB}?token=${user.token}`);
        client.send({ op: 'subscribe', channel: 'user' });
        await client.next((m) => m.type === 'subscribed');
        return client;
      }),
    );
    const order = { optionId, action: 'BUY', quantity: 3 };
    await call('POST', '/api/limit-orders', maker.token, { ...order, side: 'NO', limitPriceCents: 45 });
    await call('POST', '/api/limit-orders', taker.token, { ...order, side: 'YES', limitPriceCents: 60 });
    for (const [index, user] of [maker, taker].entries()) {
      const pushed = await (streams[index] as StreamTestClient).next(
        (m) => m.type === 'notification' && (m.notification as { type: string }).type === 'order.filled',
      );
      const feed = await a.app.inject({ url: '/api/me/notifications', headers: bearer(user.token) });
      const listed = (feed.json().data as { type: string }[]).filter((n) => n.type === 'order.filled');
      expect(listed).toHaveLength(1);
      expect(pushed.notification).toEqual(listed[0]);
    }
    for (const client of streams) client.close();
  });
});
