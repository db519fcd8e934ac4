import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { createMarket, limitOrder, type Market, marketTrade } from '../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../support/factories.js';
import { describeOperation, fillPath, type Operation, operationsOf, readOpenApi } from './openapi.js';
import { changedTables, snapshot } from './snapshot.js';

/**
 * The access-control matrix. Rows come from the OpenAPI document, so a new route is covered the day it is added:
 * every operation marked `security` is called with no key, a revoked key, a logged-out session and a suspended
 * account's key; every /api/admin/** operation with a trader's key. The per-resource cells (another user's key
 * against the owner's order, key, note, webhook...) are the explicit table below. Every cell must answer the
 * documented status and leave every table of the database unchanged.
 */

interface Resources {
  market: Market;
  orderId: string;
  tradeId: string;
  positionId: string;
  apiKeyId: string;
  sessionId: string;
  noteId: string;
  postId: string;
  commentId: string;
  notificationId: string;
  webhookId: string;
  challengeCode: string;
  passkeyId: string;
}

interface ResourceCell {
  operation: string;
  /** The status another user gets, as the operation documents it. */
  status: 403 | 404;
  request: (r: Resources) => { url: string; payload?: Record<string, unknown> };
  /** Who may do it, to prove the cell aimed at a real resource. */
  allowed: 'owner' | 'invitee';
}

const RESOURCE_CELLS: ResourceCell[] = [
  // Before the cancel below, which ends the order it amends.
  {
    operation: 'POST /api/limit-orders/{id}/amend',
    status: 404,
    request: (r) => ({ url: `/api/limit-orders/${r.orderId}/amend`, payload: { remainingQuantity: 1 } }),
    allowed: 'owner',
  },
  {
    operation: 'GET /api/orders/{id}',
    status: 404,
    request: (r) => ({ url: `/api/orders/${r.orderId}` }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/limit-orders/{id}',
    status: 404,
    request: (r) => ({ url: `/api/limit-orders/${r.orderId}` }),
    allowed: 'owner',
  },
  {
    operation: 'GET /api/me/api-keys/{id}',
    status: 404,
    request: (r) => ({ url: `/api/me/api-keys/${r.apiKeyId}` }),
    allowed: 'owner',
  },
  {
    operation: 'PATCH /api/me/api-keys/{id}',
    status: 404,
    request: (r) => ({ url: `/api/me/api-keys/${r.apiKeyId}`, payload: { name: 'taken' } }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/me/api-keys/{id}',
    status: 404,
    request: (r) => ({ url: `/api/me/api-keys/${r.apiKeyId}` }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/me/sessions/{id}',
    status: 404,
    request: (r) => ({ url: `/api/me/sessions/${r.sessionId}` }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/me/passkeys/{id}',
    status: 404,
    request: (r) => ({ url: `/api/me/passkeys/${r.passkeyId}` }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/me/trade-notes/{id}',
    status: 404,
    request: (r) => ({ url: `/api/me/trade-notes/${r.noteId}` }),
    allowed: 'owner',
  },
  {
    operation: 'POST /api/me/trade-notes',
    status: 404,
    request: (r) => ({ url: '/api/me/trade-notes', payload: { tradeId: r.tradeId, text: 'mine now' } }),
    allowed: 'owner',
  },
  {
    operation: 'POST /api/me/notifications',
    status: 404,
    request: (r) => ({ url: '/api/me/notifications', payload: { id: r.notificationId } }),
    allowed: 'owner',
  },
  {
    operation: 'POST /api/positions/{id}/protections',
    status: 404,
    request: (r) => ({
      url: `/api/positions/${r.positionId}/protections`,
      payload: { stopLossProbBps: null, takeProfitProbBps: null },
    }),
    allowed: 'owner',
  },
  {
    operation: 'GET /api/me/webhooks/{id}/deliveries',
    status: 404,
    request: (r) => ({ url: `/api/me/webhooks/${r.webhookId}/deliveries` }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/me/webhooks/{id}',
    status: 404,
    request: (r) => ({ url: `/api/me/webhooks/${r.webhookId}` }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/comments/{id}',
    status: 403,
    request: (r) => ({ url: `/api/comments/${r.commentId}` }),
    allowed: 'owner',
  },
  {
    operation: 'DELETE /api/posts/{id}',
    status: 403,
    request: (r) => ({ url: `/api/posts/${r.postId}` }),
    allowed: 'owner',
  },
  {
    operation: 'POST /api/challenges/{code}/accept',
    status: 403,
    request: (r) => ({ url: `/api/challenges/${r.challengeCode}/accept` }),
    allowed: 'invitee',
  },
];

/**
 * Authenticated operations with an id in the path that do not act on one user's own resource, and why. A new
 * operation with a path parameter must be added either here or to the table above.
 */
const NOT_OWNED = new Map<string, string>([
  [
    'POST /api/events/{id}/dispute',
    'the event is public; who may dispute is a business rule (held a position)',
  ],
  [
    'POST /api/events/{id}/conversions',
    "the event is public; a conversion acts only on the caller's own shares and cash",
  ],
  ['DELETE /api/watchlist/{event}', "names a market; acts on the caller's own watchlist"],
  ['POST /api/follow/{userId}', "names the user to follow; acts on the caller's own follows"],
  ['DELETE /api/follow/{userId}', "names the user to unfollow; acts on the caller's own follows"],
  ['POST /api/posts/{id}/like', 'posts are public: anyone signed in may like one'],
  ['POST /api/posts/{id}/comments', 'posts are public: anyone signed in may comment'],
  [
    'GET /api/challenges/{code}',
    'the invite code is the capability: whoever holds it may read the challenge',
  ],
  ['POST /api/tournaments/{slug}/join', 'tournaments are public'],
  ['DELETE /api/copy-trader/{leaderId}', "names the copied trader; acts on the caller's own copy settings"],
]);

function pathValueFor(name: string, market: Market, user: TestUser): string {
  const values: Record<string, string> = {
    slug: market.slug,
    event: market.slug,
    username: user.username,
    userId: user.id,
    leaderId: user.id,
    key: 'deposits',
    file: 'avatar.webp',
    code: 'ABCDEFGH',
  };
  return values[name] ?? market.id;
}

async function call(app: FastifyInstance, options: InjectOptions) {
  return app.inject(options);
}

async function json(
  app: FastifyInstance,
  token: string,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
) {
  const response = await app.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload ? { payload } : {}),
  });
  if (response.statusCode >= 300)
    throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

describe('access-control matrix', () => {
  let t: TestApp;
  let operations: Operation[];
  let admin: TestUser;
  let owner: TestUser;
  let intruder: TestUser;
  let invitee: TestUser;
  let suspended: TestUser;
  let market: Market;
  let resources: Resources;
  let revokedKey: string;
  let loggedOut: string;
  let suspendedKey: string;

  beforeAll(async () => {
    t = await createTestApp();
    operations = operationsOf(await readOpenApi(t.app));
    admin = await newAdmin(t.app);
    [owner, intruder, invitee, suspended] = [
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
      await newUser(t.app),
    ];
    market = await createMarket(t.app, admin.token, { options: [{ label: 'Yes', liquidityCents: 50_000 }] });
    resources = await ownerResources(t.app);

    const revoked = await json(t.app, owner.token, 'POST', '/api/me/api-keys', { name: 'old' });
    await t.app.inject({
      method: 'DELETE',
      url: `/api/me/api-keys/${revoked.id}`,
      headers: bearer(owner.token),
    });
    revokedKey = revoked.key;
    loggedOut = (await newUser(t.app)).token;
    await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(loggedOut) });

    suspendedKey = (await json(t.app, suspended.token, 'POST', '/api/me/api-keys', { name: 'bot' })).key;
    await json(t.app, owner.token, 'POST', '/api/reports', {
      targetType: 'USER',
      targetId: suspended.id,
      reason: 'spam',
    });
    const reports = await json(t.app, admin.token, 'GET', '/api/admin/reports?status=open');
    await json(t.app, admin.token, 'POST', `/api/admin/reports/${reports.data[0].id}/resolve`, {
      action: 'suspend',
    });
  });
  afterAll(() => t.close());

  async function ownerResources(app: FastifyInstance): Promise<Resources> {
    const optionId = market.options[0]?.id as string;
    const resting = await limitOrder(app, owner.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 2,
      price: 5,
    });
    const bought = await marketTrade(app, owner.token, {
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 3,
      price: 95,
    });
    const tradeId = bought.json().trades[0].id;
    const positions = await json(app, owner.token, 'GET', '/api/positions');
    const key = await json(app, owner.token, 'POST', '/api/me/api-keys', { name: 'bot' });
    // A second session of the owner's (a phone, say): the one the cell ends, not the one the test signs in with.
    const phone = await json(app, owner.token, 'POST', '/api/auth/login', {
      email: owner.email,
      password: owner.password,
    });
    const sessions = await json(app, phone.token, 'GET', '/api/me/sessions');
    const sessionId = sessions.data.find((s: { current: boolean }) => s.current).id;
    const note = await json(app, owner.token, 'POST', '/api/me/trade-notes', { tradeId, text: 'why' });
    const post = await json(app, owner.token, 'POST', '/api/posts', { eventSlug: market.slug, text: 'Mine' });
    const comment = await json(app, owner.token, 'POST', `/api/posts/${post.id}/comments`, {
      text: 'Also mine',
    });
    await json(app, intruder.token, 'POST', `/api/posts/${post.id}/comments`, { text: 'Hello' });
    const feed = await json(app, owner.token, 'GET', '/api/me/notifications');
    const webhook = await json(app, owner.token, 'POST', '/api/me/webhooks', {
      url: 'http://127.0.0.1:9/hook',
    });
    const challenge = await json(app, owner.token, 'POST', '/api/challenges', {
      opponentUsername: invitee.username,
      endsAt: new Date(Date.now() + 2 * 86_400_000).toISOString(),
    });
    // Last: with a factor in force, the sensitive actions above would need a fresh one.
    const site = new URL(t.config.publicUrl);
    const options = await json(app, owner.token, 'POST', '/api/me/passkeys/options');
    const passkey = await json(app, owner.token, 'POST', '/api/me/passkeys', {
      name: 'laptop',
      response: new SoftwareAuthenticator(site.origin, site.hostname).create(options),
      password: owner.password,
    });
    return {
      market,
      orderId: resting.json().id,
      tradeId,
      positionId: positions.data[0].id,
      apiKeyId: key.id,
      sessionId,
      noteId: note.id,
      postId: post.id,
      commentId: comment.id,
      notificationId: feed.data[0].id,
      webhookId: webhook.id,
      challengeCode: challenge.code,
      passkeyId: passkey.passkey.id,
    };
  }

  function requestFor(operation: Operation, authorization: string | null): InjectOptions {
    const values = Object.fromEntries(
      operation.parameters
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => [parameter.name, pathValueFor(parameter.name, market, owner)]),
    );
    return {
      method: operation.method,
      url: fillPath(operation.path, values),
      headers: authorization ? { authorization } : {},
      ...(operation.body ? { payload: {} } : {}),
    };
  }

  /** Runs one column of the matrix and returns the cells that answered otherwise than expected. */
  async function column(
    rows: Operation[],
    authorization: string | null,
    expected: (operation: Operation) => { status: number; code: string },
  ): Promise<string[]> {
    const before = await snapshot(t.database);
    const wrong: string[] = [];
    for (const operation of rows) {
      const response = await call(t.app, requestFor(operation, authorization));
      const { status, code } = expected(operation);
      const body = response.json();
      if (response.statusCode !== status || body.code !== code) {
        wrong.push(
          `${describeOperation(operation)}: ${response.statusCode} ${body.code}, expected ${status} ${code}`,
        );
      }
    }
    const changed = changedTables(before, await snapshot(t.database));
    if (changed.length > 0) wrong.push(`tables changed: ${changed.join(', ')}`);
    return wrong;
  }

  const secured = () => operations.filter((operation) => operation.secured);
  const unauthenticated = { status: 401, code: 'UNAUTHENTICATED' };

  it('reads the operations from the OpenAPI document, and every admin operation requires a key', async () => {
    expect(secured().length).toBeGreaterThan(40);
    const before = await snapshot(t.database);
    expect(Object.keys(before).length).toBeGreaterThan(20);
    await json(t.app, owner.token, 'POST', '/api/watchlist', { eventSlug: market.slug });
    expect(changedTables(before, await snapshot(t.database))).toEqual(['watchlist_items']);
    expect(
      operations.filter((operation) => operation.admin && !operation.secured).map(describeOperation),
    ).toEqual([]);
  });

  it('answers every authenticated operation without a key with 401 and changes nothing', async () => {
    expect(await column(secured(), null, () => unauthenticated)).toEqual([]);
  });

  it('answers every authenticated operation with a revoked API key with 401 and changes nothing', async () => {
    expect(await column(secured(), `Bearer ${revokedKey}`, () => unauthenticated)).toEqual([]);
  });

  it('answers every authenticated operation with a logged-out session with 401 and changes nothing', async () => {
    expect(await column(secured(), `Bearer ${loggedOut}`, () => unauthenticated)).toEqual([]);
  });

  it("answers every authenticated operation with a suspended account's key with 403 and changes nothing", async () => {
    const expected = { status: 403, code: 'ACCOUNT_SUSPENDED' };
    expect(await column(secured(), `Bearer ${suspendedKey}`, () => expected)).toEqual([]);
  });

  it("answers every admin operation with a trader's key with 403 and changes nothing", async () => {
    const admins = operations.filter((operation) => operation.admin);
    expect(admins.length).toBeGreaterThan(15);
    expect(await column(admins, `Bearer ${owner.token}`, () => ({ status: 403, code: 'FORBIDDEN' }))).toEqual(
      [],
    );
  });

  it('lets every public operation answer without a key', async () => {
    const wrong: string[] = [];
    for (const operation of operations.filter((o) => !o.secured)) {
      const response = await call(t.app, requestFor(operation, null));
      if (response.statusCode === 401 || response.statusCode === 403) {
        wrong.push(`${describeOperation(operation)}: ${response.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('classifies every authenticated operation that names a resource in its path', () => {
    const inTable = new Set(RESOURCE_CELLS.map((cell) => cell.operation));
    const unclassified = secured()
      .filter((operation) => !operation.admin && operation.parameters.some((p) => p.in === 'path'))
      .map(describeOperation)
      .filter((name) => !inTable.has(name) && !NOT_OWNED.has(name));
    expect(unclassified).toEqual([]);
    const documented = new Set(operations.map(describeOperation));
    expect([...inTable].filter((name) => !documented.has(name))).toEqual([]);
  });

  it("answers another user's key on the owner's resources with the documented 403 or 404 and changes nothing", async () => {
    const before = await snapshot(t.database);
    const wrong: string[] = [];
    for (const cell of RESOURCE_CELLS) {
      const operation = operations.find((o) => describeOperation(o) === cell.operation);
      expect(operation?.statuses, cell.operation).toContain(cell.status);
      const { url, payload } = cell.request(resources);
      const response = await call(t.app, {
        method: operation?.method ?? 'GET',
        url,
        headers: bearer(intruder.token),
        ...(payload ? { payload } : {}),
      });
      if (response.statusCode !== cell.status) {
        wrong.push(`${cell.operation}: ${response.statusCode} ${response.body}, expected ${cell.status}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(changedTables(before, await snapshot(t.database))).toEqual([]);

    // The same requests by the owner (or the invitee) succeed: every cell aimed at a real resource.
    for (const cell of RESOURCE_CELLS) {
      const operation = operations.find((o) => describeOperation(o) === cell.operation);
      const { url, payload } = cell.request(resources);
      const actor = cell.allowed === 'owner' ? owner : invitee;
      const response = await call(t.app, {
        method: operation?.method ?? 'GET',
        url,
        headers: bearer(actor.token),
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode, `${cell.operation} by its ${cell.allowed}: ${response.body}`).toBeLessThan(
        300,
      );
    }
  });
});
