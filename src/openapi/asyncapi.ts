import { MAX_CHANNEL_LENGTH, MAX_CLIENT_MESSAGE_BYTES } from '../modules/stream/routes.js';
import { clientMessages, messages, ref, WINDOW } from './asyncapi-messages.js';
import { type Json, schemas } from './asyncapi-payloads.js';

/**
 * The AsyncAPI 3 description of the WebSocket stream (`GET /api/stream`), served at /api/asyncapi.json beside the
 * OpenAPI document: its channels and operations here, its messages in asyncapi-messages.ts and their
 * payloads in asyncapi-payloads.ts. Ids are strings on every channel.
 */

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
        'change is published when its transaction commits, on every instance.\n\nResuming: a client that ' +
        'reconnects (to the same instance or another) subscribes with `lastSeq`, the last seq it holds, and gets ' +
        `\`resumed\` and exactly the messages it missed, from a window every instance shares: ${WINDOW}. ` +
        'Older than that, a `gap` message says so and a fresh `snapshot` follows. The same messages are at ' +
        '`GET /api/stream/replay?channel=&fromSeq=`.\n\nLimits: at most 100 subscriptions ' +
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
        messages: channelMessages(['snapshot', 'delta', 'resumed', 'gap', 'streamResync', ...clientMessages]),
      },
      trades: {
        address: 'trades:{optionId}',
        title: 'Executions of an option',
        parameters: { optionId: { description: 'The option id' } },
        messages: channelMessages(['trades', 'resumed', 'gap', 'streamResync', ...clientMessages]),
      },
      event: {
        address: 'event:{eventId}',
        title: 'A market’s status and discussion',
        parameters: { eventId: { description: 'The event id' } },
        messages: channelMessages(['market', 'discussion', 'gap', 'streamResync', ...clientMessages]),
      },
      user: {
        address: 'user',
        title: 'Your orders, fills, conversions and notifications (needs credentials)',
        messages: channelMessages([
          'order',
          'fill',
          'conversion',
          'notification',
          'userResync',
          'gap',
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
        messages: ['snapshot', 'delta', 'resumed', 'gap', 'streamResync', 'unsubscribed', 'error'].map(
          (name) => ({
            $ref: `#/channels/book/messages/${name}`,
          }),
        ),
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
        messages: ['subscribed', 'trades', 'resumed', 'gap', 'streamResync', 'unsubscribed', 'error'].map(
          (name) => ({
            $ref: `#/channels/trades/messages/${name}`,
          }),
        ),
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
        messages: ['subscribed', 'market', 'discussion', 'gap', 'streamResync', 'unsubscribed', 'error'].map(
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
          'conversion',
          'notification',
          'userResync',
          'gap',
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
