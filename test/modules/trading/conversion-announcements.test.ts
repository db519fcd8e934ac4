import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { webhookViolations } from '../../support/contract.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { StreamTestClient, streamUrl } from '../../support/stream-client.js';
import { type Receiver, startReceiver, verifyWebhook } from '../../support/webhook-receiver.js';

/** A conversion is announced like a fill: on the stream's user channel, as a webhook event and as a feed item. */

let t: TestApp;
let admin: TestUser;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await createTestApp();
  admin = await newAdmin(t.app);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function createExclusive(): Promise<{ id: string; slug: string; options: { id: string }[] }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/events',
    headers: bearer(admin.token),
    payload: {
      title: `Who wins the league ${Date.now()}`,
      category: 'cricket',
      closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      exclusive: true,
      liquidityCents: 20_000,
      options: ['A', 'B', 'C'].map((label) => ({ label })),
      open: true,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('a conversion', () => {
  it('reaches the user channel, the webhooks and the feed, with the record GET /api/conversions lists', async () => {
    const event = await createExclusive();
    const user = await newUser(t.app);
    const r = await startReceiver();
    receivers.push(r);
    const sub = (
      await t.app.inject({
        method: 'POST',
        url: '/api/me/webhooks',
        headers: bearer(user.token),
        payload: { url: r.url, events: ['conversion.completed'] },
      })
    ).json();
    const own = await StreamTestClient.open(`${await streamUrl(t)}?token=${user.token}`);
    own.send({ op: 'subscribe', channel: 'user' });
    await own.next((m) => m.type === 'subscribed');
    try {
      const convert = (body: object) =>
        t.app.inject({
          method: 'POST',
          url: `/api/events/${event.id}/conversions`,
          headers: bearer(user.token),
          payload: body,
        });
      const split = await convert({ type: 'split', quantity: 4 });
      expect(split.statusCode, split.body).toBe(201);
      const converted = await convert({ type: 'convert', quantity: 2, optionIds: [event.options[0]!.id] });
      // Holding no NO of A, the user cannot convert it: nothing is announced for a refusal.
      expect(converted.statusCode).toBe(409);
      const merge = await convert({ type: 'merge', quantity: 1 });
      expect(merge.statusCode, merge.body).toBe(201);

      const listed = (await t.app.inject({ url: '/api/conversions', headers: bearer(user.token) })).json()
        .data as { id: string }[];
      for (const made of [split.json(), merge.json()]) {
        const heard = await own.next(
          (m) => m.type === 'conversion' && (m.conversion as { id: string }).id === made.id,
        );
        expect(heard).toEqual({ type: 'conversion', channel: 'user', conversion: made });
        expect(listed).toContainEqual(made);
      }
      expect(own.pending().filter((m) => m.type === 'conversion')).toEqual([]);

      await t.app.jobs.runNow('webhooks.deliver');
      expect(r.received.map((w) => w.json.type)).toEqual(['conversion.completed', 'conversion.completed']);
      for (const w of r.received) expect(verifyWebhook(sub.secret, w.headers, w.body)).toBe(true);
      expect(r.received.flatMap((w) => webhookViolations(t.app, w.body))).toEqual([]);
      expect(r.received.map((w) => w.json.data).sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
        split.json(),
        merge.json(),
      ]);

      const feed = (
        await t.app.inject({ url: '/api/me/notifications?limit=200', headers: bearer(user.token) })
      ).json().data as { type: string; title: string; body: string; data: Record<string, unknown> }[];
      const items = feed.filter((n) => n.type === 'conversion.completed');
      expect(items.map((n) => n.title).sort()).toEqual(['Shares merged', 'Shares split']);
      expect(items.find((n) => n.title === 'Shares split')).toMatchObject({
        body: expect.stringContaining('4 complete sets'),
        data: { conversionId: split.json().id, eventSlug: event.slug, type: 'split', cashCents: -400 },
      });
    } finally {
      own.close();
    }
  });
});
