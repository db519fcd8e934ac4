import { MAX_CHANNEL_LENGTH } from '../modules/stream/routes.js';
import { id, int, type Json, object, seq } from './asyncapi-payloads.js';

/**
 * The stream's messages (the AsyncAPI document's components.messages): what a client sends, and what it receives on
 * each kind of channel.
 */

/** The window's size, as the operator sets it (the defaults). */
export const WINDOW =
  'the last `STREAM_WINDOW_MESSAGES` (default 1000) changes of each option, for at most `STREAM_WINDOW_SECONDS` ' +
  '(default 300) seconds';

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const channelName = { type: 'string', maxLength: MAX_CHANNEL_LENGTH };

const message = (name: string, summary: string, payload: Json): Json => ({
  name,
  title: name,
  summary,
  contentType: 'application/json',
  payload,
});

export const messages: Record<string, Json> = {
  subscribe: message(
    'subscribe',
    'Start receiving a channel, or resume it after a reconnection',
    object(['op', 'channel'], {
      op: { const: 'subscribe' },
      channel: channelName,
      lastSeq: {
        type: 'integer',
        minimum: 0,
        description:
          'Resume a book or trades channel: the last seq you hold. You get `resumed` and exactly the messages ' +
          `after it, from the window every instance shares (${WINDOW}); or, when they are no longer all kept, ` +
          '`gap`, then a fresh `snapshot` (book) or `subscribed` (trades). On the other channels: `gap`, then ' +
          'the subscription.',
      },
    }),
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
  resumed: message(
    'resumed',
    'A resumed subscription: the `replayed` messages after `lastSeq`, up to `seq`, follow at once (a trades ' +
      'channel counts only the changes with executions), then live ones; nothing is missed nor sent twice',
    object(['type', 'channel', 'lastSeq', 'seq', 'replayed'], {
      type: { const: 'resumed' },
      channel: channelName,
      lastSeq: int,
      seq: {
        ...int,
        description: 'The seq of the last message replayed, or lastSeq when nothing was missed',
      },
      replayed: int,
    }),
  ),
  gap: message(
    'gap',
    `The messages after \`lastSeq\` are no longer all kept (the window keeps ${WINDOW}), or the channel keeps no ` +
      'window: a book channel gets a fresh `snapshot` next (replace your book with it); on a trades channel ' +
      'reload the tape, on the others what you hold, over the REST API',
    object(['type', 'channel', 'lastSeq', 'oldestSeq', 'reason'], {
      type: { const: 'gap' },
      channel: channelName,
      lastSeq: int,
      oldestSeq: { type: ['integer', 'null'], description: 'The oldest seq still kept for the channel' },
      reason: { type: 'string' },
    }),
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
  conversion: message(
    'conversion',
    'One of your conversions (convert, split, merge) was carried out: your positions and cash changed',
    object(['type', 'channel', 'conversion'], {
      type: { const: 'conversion' },
      channel: { const: 'user' },
      conversion: ref('schemas', 'StreamConversion'),
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

export const clientMessages = ['subscribe', 'unsubscribe', 'resync', 'subscribed', 'unsubscribed', 'error'];
