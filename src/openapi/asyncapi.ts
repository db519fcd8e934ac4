import { MAX_CHANNEL_LENGTH, MAX_CLIENT_MESSAGE_BYTES } from '../modules/stream/routes.js';

/**
 * The AsyncAPI 3 description of the WebSocket stream (`GET /api/stream`), served at /api/asyncapi.json beside the
 * OpenAPI document. Ids are strings on every channel.
 */

type Json = Record<string, unknown>;

const id = { type: 'string', pattern: '^[1-9][0-9]{0,15}$', description: 'Numeric id as a string' };
const int = { type: 'integer' };
const side = { type: 'string', enum: ['YES', 'NO'] };
const action = { type: 'string', enum: ['BUY', 'SELL'] };
const seq = {
  type: 'integer',
  description:
    'The book version: rises by exactly one per committed change of the option. A delta whose seq is not the ' +
    'last seq + 1 means a gap: send `resync` for a fresh snapshot.',
};

const object = (required: string[], properties: Json, description?: string): Json => ({
  type: 'object',
  required,
  properties,
  ...(description ? { description } : {}),
});

const schemas: Record<string, Json> = {
  Level: object(
    ['side', 'priceCents', 'quantity', 'orders', 'houseQuantity'],
    {
      side: {
        type: 'string',
        enum: ['bid', 'ask'],
        description: 'bid: YES bids (BUY YES, SELL NO); ask: YES asks',
      },
      priceCents: { ...int, description: 'YES price 1..99 (a NO price is 100 − it)' },
      quantity: {
        ...int,
        description: 'Resting shares, the house quote included; 0 in a delta = the level is gone',
      },
      orders: { ...int, description: 'Resting user orders (the house quote is not an order)' },
      houseQuantity: { ...int, description: 'Shares offered by the house market maker' },
    },
    'One price level of the YES ladder as it stands',
  ),
  StreamTrade: object(['id', 'yesPriceCents', 'quantity', 'takerSide', 'takerAction', 'at'], {
    id,
    yesPriceCents: int,
    quantity: int,
    takerSide: side,
    takerAction: action,
    at: { type: 'string', format: 'date-time' },
  }),
  StreamOrder: object(
    [
      'id',
      'optionId',
      'kind',
      'side',
      'action',
      'priceCents',
      'quantity',
      'filledQuantity',
      'status',
      'cancelReason',
    ],
    {
      id,
      optionId: id,
      kind: { type: 'string', enum: ['market', 'limit'] },
      side,
      action,
      priceCents: int,
      quantity: int,
      filledQuantity: int,
      status: { type: 'string', enum: ['open', 'partially_filled', 'filled', 'cancelled', 'expired'] },
      cancelReason: { type: ['string', 'null'] },
    },
  ),
  StreamFill: object(
    [
      'id',
      'orderId',
      'optionId',
      'side',
      'action',
      'quantity',
      'priceCents',
      'feeCents',
      'liquidity',
      'createdAt',
    ],
    {
      id,
      orderId: id,
      optionId: id,
      side,
      action,
      quantity: int,
      priceCents: { ...int, description: 'In the order’s own side' },
      feeCents: int,
      liquidity: { type: 'string', enum: ['maker', 'taker'] },
      createdAt: { type: 'string', format: 'date-time' },
    },
  ),
  StreamNotification: object(
    ['id', 'type', 'title', 'body', 'data', 'read', 'createdAt'],
    {
      id,
      type: { type: 'string', description: 'Machine type, e.g. order.filled, market.settled, social.like' },
      title: { type: 'string' },
      body: { type: 'string' },
      data: {
        type: 'object',
        description: 'What it is about (ids, eventSlug, amounts), as in GET /api/me/notifications',
      },
      read: { type: 'boolean' },
      createdAt: { type: 'string', format: 'date-time' },
    },
    'A new item of your notification feed, as GET /api/me/notifications lists it',
  ),
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const channelName = { type: 'string', maxLength: MAX_CHANNEL_LENGTH };

const message = (name: string, summary: string, payload: Json): Json => ({
  name,
  title: name,
  summary,
  contentType: 'application/json',
  payload,
});

const messages: Record<string, Json> = {
  subscribe: message(
    'subscribe',
    'Start receiving a channel',
    object(['op', 'channel'], { op: { const: 'subscribe' }, channel: channelName }),
  ),
  unsubscribe: message(
    'unsubscribe',
    'Stop receiving a channel',
    object(['op', 'channel'], { op: { const: 'unsubscribe' }, channel: channelName }),
  ),
  resync: message(
    'resync',
    'Ask for a fresh snapshot of a book channel after a gap in seq',
    object(['op', 'channel'], { op: { const: 'resync' }, channel: channelName }),
  ),
  subscribed: message(
    'subscribed',
    'A trades, event or user subscription is in place',
    object(['type', 'channel'], { type: { const: 'subscribed' }, channel: channelName }),
  ),
  unsubscribed: message(
    'unsubscribed',
    'The subscription is gone',
    object(['type', 'channel'], { type: { const: 'unsubscribed' }, channel: channelName }),
  ),
  snapshot: message(
    'snapshot',
    'The whole YES ladder of an option at version seq (the same read as GET /api/orderbook)',
    object(['type', 'channel', 'seq', 'eventId', 'exclusive', 'lastYesPriceCents', 'bids', 'asks'], {
      type: { const: 'snapshot' },
      channel: channelName,
      seq,
      eventId: { type: 'string', description: 'The event the option belongs to' },
      exclusive: {
        type: 'boolean',
        description:
          'The option is one of an exclusive event’s, whose one house maker quotes all its options: a trade in any ' +
          'of them moves this book too (follow every option of the event to see the whole market)',
      },
      lastYesPriceCents: { type: ['integer', 'null'] },
      bids: { type: 'array', items: ref('schemas', 'Level'), description: 'Best (highest) first' },
      asks: { type: 'array', items: ref('schemas', 'Level'), description: 'Best (lowest) first' },
    }),
  ),
  delta: message(
    'delta',
    'The levels one committed change touched, as they now stand; snapshot + every delta = a fresh snapshot',
    object(['type', 'channel', 'seq', 'levels'], {
      type: { const: 'delta' },
      channel: channelName,
      seq,
      levels: { type: 'array', items: ref('schemas', 'Level') },
    }),
  ),
  trades: message(
    'trades',
    'The executions of one committed change, in order',
    object(['type', 'channel', 'seq', 'trades'], {
      type: { const: 'trades' },
      channel: channelName,
      seq,
      trades: { type: 'array', items: ref('schemas', 'StreamTrade') },
    }),
  ),
  order: message(
    'order',
    'One of your orders changed (placed, filled, cancelled, expired, shrunk by an amend; an amend that replaces it ' +
      'sends the old order cancelled with cancelReason `replaced` and the new one)',
    object(['type', 'channel', 'order'], {
      type: { const: 'order' },
      channel: { const: 'user' },
      order: ref('schemas', 'StreamOrder'),
    }),
  ),
  fill: message(
    'fill',
    'One execution of one of your orders',
    object(['type', 'channel', 'fill'], {
      type: { const: 'fill' },
      channel: { const: 'user' },
      fill: ref('schemas', 'StreamFill'),
    }),
  ),
  notification: message(
    'notification',
    'A new item in your notification feed (it also counts as unread there)',
    object(['type', 'channel', 'notification'], {
      type: { const: 'notification' },
      channel: { const: 'user' },
      notification: ref('schemas', 'StreamNotification'),
    }),
  ),
  market: message(
    'market',
    'The market changed (opened, closed, resolved, settled, an upheld dispute, or an edit): its status as it now ' +
      'stands; reload it with GET /api/events/{slug} for the rest',
    object(['type', 'channel', 'eventId', 'status'], {
      type: { const: 'market' },
      channel: channelName,
      eventId: id,
      status: { type: 'string', enum: ['open', 'closed', 'resolved', 'settled'] },
    }),
  ),
  discussion: message(
    'discussion',
    'A post of the market’s discussion appeared, changed (a like, a comment, a comment removed) or was removed ' +
      '(deleted or hidden): its like and comment counts as they now stand; fetch a new post with GET /api/posts/{id}',
    object(['type', 'channel', 'postId', 'change', 'likeCount', 'commentCount'], {
      type: { const: 'discussion' },
      channel: channelName,
      postId: id,
      change: { type: 'string', enum: ['created', 'updated', 'removed'] },
      likeCount: int,
      commentCount: int,
    }),
  ),
  userResync: message(
    'resync',
    'Too many of your changes at once to send one by one: reload your orders with GET /api/limit-orders',
    object(['type', 'channel', 'reason'], {
      type: { const: 'resync' },
      channel: { const: 'user' },
      reason: { type: 'string' },
    }),
  ),
  streamResync: message(
    'resync',
    'The server may have missed changes (its connection to the database dropped): sent at once, and again when ' +
      'updates resume. A book channel then gets a fresh snapshot (replace your book with it, whatever its seq); ' +
      'on a trades or the user channel, reload what you hold over the REST API',
    object(['type', 'channel', 'reason'], {
      type: { const: 'resync' },
      channel: channelName,
      reason: { type: 'string' },
    }),
  ),
  error: message(
    'error',
    'A request could not be served; the connection stays open',
    object(['type', 'code', 'error'], {
      type: { const: 'error' },
      code: {
        type: 'string',
        enum: [
          'BAD_REQUEST',
          'CHANNEL_TOO_LONG',
          'BAD_CHANNEL',
          'NOT_FOUND',
          'NOT_SUBSCRIBED',
          'UNAUTHENTICATED',
          'TOO_MANY_SUBSCRIPTIONS',
          'DATABASE_UNAVAILABLE',
          'INTERNAL_ERROR',
        ],
      },
      error: { type: 'string' },
      channel: channelName,
    }),
  ),
};

const clientMessages = ['subscribe', 'unsubscribe', 'resync', 'subscribed', 'unsubscribed', 'error'];

export function asyncapiDocument(publicUrl: string): Json {
  const url = new URL(publicUrl);
  const ws = url.protocol === 'https:' ? 'wss' : 'ws';
  const channelMessages = (names: string[]) =>
    Object.fromEntries(names.map((name) => [name, ref('messages', name)]));
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Prediction-market exchange stream',
      version: '1.0.0',
      description:
        `Live order books, trades, markets' status and discussion, and your own orders and notifications over one ` +
        `WebSocket at \`/api/stream\`. Send JSON ` +
        `\`{"op": "subscribe" | "unsubscribe" | "resync", "channel": "..."}\`; everything received is JSON with a ` +
        '`type`. Book channels start with a `snapshot` and continue with a `delta` per committed change; `seq` rises ' +
        'by exactly one per change, so a gap means a missed message: send `resync` for a fresh snapshot. Every ' +
        'change is published when its transaction commits, on every instance.\n\nLimits: at most 100 subscriptions ' +
        `per connection; channel names at most ${MAX_CHANNEL_LENGTH} characters (error \`CHANNEL_TOO_LONG\`); a ` +
        `client message over ${MAX_CLIENT_MESSAGE_BYTES} bytes closes the connection with code 1009 (message too ` +
        'big); invalid credentials close it with 4401. One address holds at most `STREAM_MAX_CONNECTIONS_PER_ADDRESS` ' +
        '(100) connections: the handshake of one more is answered HTTP 429 `TOO_MANY_CONNECTIONS` with ' +
        '`Retry-After`. Ids are strings everywhere.',
    },
    servers: {
      exchange: {
        host: url.host,
        protocol: ws,
        // Under PUBLIC_URL's path, as the REST API is.
        pathname: `${url.pathname.replace(/\/+$/, '')}/api/stream`,
        description:
          'Authenticate (for the user channel only) with `Authorization: Bearer <API key or session token>` or ' +
          '`?token=<key>`.',
      },
    },
    defaultContentType: 'application/json',
    channels: {
      book: {
        address: 'book:{optionId}',
        title: 'Order book of an option',
        parameters: { optionId: { description: 'The option id' } },
        messages: channelMessages(['snapshot', 'delta', 'streamResync', ...clientMessages]),
      },
      trades: {
        address: 'trades:{optionId}',
        title: 'Executions of an option',
        parameters: { optionId: { description: 'The option id' } },
        messages: channelMessages(['trades', 'streamResync', ...clientMessages]),
      },
      event: {
        address: 'event:{eventId}',
        title: 'A market’s status and discussion',
        parameters: { eventId: { description: 'The event id' } },
        messages: channelMessages(['market', 'discussion', 'streamResync', ...clientMessages]),
      },
      user: {
        address: 'user',
        title: 'Your orders, fills and notifications (needs credentials)',
        messages: channelMessages([
          'order',
          'fill',
          'notification',
          'userResync',
          'streamResync',
          ...clientMessages,
        ]),
      },
    },
    operations: {
      subscribeBook: {
        action: 'send',
        channel: { $ref: '#/channels/book' },
        summary: 'Subscribe, unsubscribe or resync a book channel',
        messages: ['subscribe', 'unsubscribe', 'resync'].map((name) => ({
          $ref: `#/channels/book/messages/${name}`,
        })),
      },
      receiveBook: {
        action: 'receive',
        channel: { $ref: '#/channels/book' },
        summary: 'Snapshots and deltas of the YES ladder',
        messages: ['snapshot', 'delta', 'streamResync', 'unsubscribed', 'error'].map((name) => ({
          $ref: `#/channels/book/messages/${name}`,
        })),
      },
      subscribeTrades: {
        action: 'send',
        channel: { $ref: '#/channels/trades' },
        messages: ['subscribe', 'unsubscribe'].map((name) => ({
          $ref: `#/channels/trades/messages/${name}`,
        })),
      },
      receiveTrades: {
        action: 'receive',
        channel: { $ref: '#/channels/trades' },
        messages: ['subscribed', 'trades', 'streamResync', 'unsubscribed', 'error'].map((name) => ({
          $ref: `#/channels/trades/messages/${name}`,
        })),
      },
      subscribeEvent: {
        action: 'send',
        channel: { $ref: '#/channels/event' },
        messages: ['subscribe', 'unsubscribe'].map((name) => ({
          $ref: `#/channels/event/messages/${name}`,
        })),
      },
      receiveEvent: {
        action: 'receive',
        channel: { $ref: '#/channels/event' },
        messages: ['subscribed', 'market', 'discussion', 'streamResync', 'unsubscribed', 'error'].map(
          (name) => ({ $ref: `#/channels/event/messages/${name}` }),
        ),
      },
      subscribeUser: {
        action: 'send',
        channel: { $ref: '#/channels/user' },
        messages: ['subscribe', 'unsubscribe'].map((name) => ({ $ref: `#/channels/user/messages/${name}` })),
      },
      receiveUser: {
        action: 'receive',
        channel: { $ref: '#/channels/user' },
        messages: [
          'subscribed',
          'order',
          'fill',
          'notification',
          'userResync',
          'streamResync',
          'unsubscribed',
          'error',
        ].map((name) => ({
          $ref: `#/channels/user/messages/${name}`,
        })),
      },
    },
    components: { schemas, messages },
  };
}
