import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import type { FastifyPluginAsync } from 'fastify';
import type { CredentialResolver } from '../../platform/auth.js';
import { AddressBudget } from '../../platform/connections.js';
import { isDatabaseUnavailable } from '../../platform/db/types.js';
import { TooManyConnectionsError } from '../../platform/errors.js';
import { errors } from '../../platform/http.js';
import { StreamClient } from './hub.js';
import { Replay, ReplayQuery } from './schemas.js';
import { StreamError, type StreamService } from './service.js';
import type { StreamWindow } from './window.js';

const MAX_SUBSCRIPTIONS = 100;
/** The largest message a client may send; a bigger one closes the connection with 1009 (message too big). */
export const MAX_CLIENT_MESSAGE_BYTES = 4096;
/** The longest channel name (`book:<optionId>` and the like are far shorter). */
export const MAX_CHANNEL_LENGTH = 64;
/** How long a client refused for holding too many connections is asked to wait. */
const TOO_MANY_RETRY_AFTER_SECONDS = 10;

const DESCRIPTION = `WebSocket. Connect with \`Authorization: Bearer <key>\` or \`?token=<key>\` (needed only for the user
channel), then send JSON messages:

- \`{"op":"subscribe","channel":"book:<optionId>"}\`: a \`snapshot\` of the option's YES ladder (\`bids\`, \`asks\`: price,
  quantity, orders, houseQuantity; a NO price is 100 − the YES price), then a \`delta\` after every change with the
  levels it changed, as they now stand (quantity 0 = gone). Every book message carries \`seq\`, the book version:
  consecutive per option. A client that sees a gap sends \`{"op":"resync","channel":"book:<optionId>"}\` and gets a
  fresh snapshot.
- \`{"op":"subscribe","channel":"book:<optionId>","lastSeq":<seq>}\` after a reconnection (to this instance or any
  other), with the last \`seq\` you hold: \`resumed\` (\`lastSeq\`, \`seq\`, \`replayed\`), then exactly the deltas you
  missed, then live ones. When they are no longer all kept (the window keeps the last \`STREAM_WINDOW_MESSAGES\`, 1000 by
  default, changes of each option for at most \`STREAM_WINDOW_SECONDS\`, 300 by default), a \`gap\` message says so and a fresh \`snapshot\`
  follows. \`trades:<optionId>\` resumes the same way (on a \`gap\`, reload the tape over the REST API); the same
  messages are at \`GET /api/stream/replay\`. The other channels keep no window: \`lastSeq\` there answers \`gap\`.
- \`{"op":"subscribe","channel":"trades:<optionId>"}\`: \`trades\` messages with the executions (YES price, quantity,
  taker's side and action, time).
- \`{"op":"subscribe","channel":"event:<eventId>"}\`: \`market\` when the market's status changes (closed, resolved,
  settled...) and \`discussion\` when a post of its discussion appears, is liked, commented or removed.
- \`{"op":"subscribe","channel":"user"}\`: your \`order\` updates (placed, filled, cancelled, expired), \`fill\`s and
  new \`notification\`s.
- \`{"op":"unsubscribe","channel":"..."}\`.

When the server may have missed changes (its connection to the database dropped), every subscriber of the affected
channels gets \`{"type":"resync","channel":...,"reason":...}\` at once, and again when updates resume; a book
channel then gets a fresh \`snapshot\` (replace the book you hold with it, whatever its \`seq\`), and a \`trades:\` or
\`user\` subscriber reloads what it holds over the REST API.

Errors come as \`{"type":"error","code":...,"error":...}\`. At most ${MAX_SUBSCRIPTIONS} subscriptions per connection;
channel names are at most ${MAX_CHANNEL_LENGTH} characters; a client message over ${MAX_CLIENT_MESSAGE_BYTES} bytes
closes the connection with code 1009. One address may hold at most \`STREAM_MAX_CONNECTIONS_PER_ADDRESS\` (100)
stream connections at once (behind a trusted proxy, each forwarded client address); the handshake of one more is
answered \`429 TOO_MANY_CONNECTIONS\` with \`Retry-After\`. Ids are strings. Changes are published when they
commit, on every instance. The AsyncAPI 3 document at \`/api/asyncapi.json\` describes every channel and message.`;

interface ClientMessage {
  op?: unknown;
  channel?: unknown;
  lastSeq?: unknown;
}

export const streamRoutes: FastifyPluginAsync<{
  stream: StreamService;
  resolve: CredentialResolver;
  /** The most stream connections one client address may hold at once. */
  maxConnectionsPerAddress: number;
}> = async (app, { stream, resolve, maxConnectionsPerAddress }) => {
  await app.register(websocket, { options: { maxPayload: MAX_CLIENT_MESSAGE_BYTES } });
  const connections = new AddressBudget(maxConnectionsPerAddress);

  app.get(
    '/api/stream',
    {
      websocket: true,
      // Counted before the handshake, so one more connection is refused with a plain 429 the client can read; the
      // count is given back when the connection closes, however it ends.
      onRequest: async (request) => {
        if (request.headers.upgrade?.toLowerCase() !== 'websocket') return;
        const address = request.ip;
        if (!connections.take(address))
          throw new TooManyConnectionsError(
            'stream connections',
            connections.limit,
            TOO_MANY_RETRY_AFTER_SECONDS,
          );
        request.raw.socket.once('close', () => connections.give(address));
      },
      schema: {
        tags: ['Market data'],
        summary: 'Live order book, trades and your orders (WebSocket)',
        description: DESCRIPTION,
      },
    },
    (socket, request) => {
      // Listen at once: a client may send its first subscription before its token has been checked.
      const query = request.query as { token?: unknown };
      const token = typeof query.token === 'string' ? query.token : null;
      const ready = (async () => {
        if (request.badCredentials) return null;
        if (request.user) return new StreamClient(socket, request.user.userId);
        if (token === null) return new StreamClient(socket, null);
        const user = await resolve(token);
        return user ? new StreamClient(socket, user.userId) : null;
      })().then(
        (client) => {
          if (!client) socket.close(4401, 'invalid credentials');
          return client;
        },
        (error: unknown) => {
          // The token could not be checked (the database out of reach): try again later.
          request.log.warn({ err: error }, 'could not check a stream token');
          socket.close(1013, 'try again later');
          return null;
        },
      );
      socket.on('close', () => {
        ready.then((client) => client && stream.drop(client)).catch(() => {});
      });
      socket.on('message', (raw) => {
        ready.then((client) => client && handle(client, raw)).catch(() => {});
      });
      const handle = (client: StreamClient, raw: unknown) => {
        let message: ClientMessage;
        try {
          message = JSON.parse(String(raw)) as ClientMessage;
        } catch {
          client.send({ type: 'error', code: 'BAD_REQUEST', error: 'Messages are JSON objects' });
          return;
        }
        const { op, channel, lastSeq } = message ?? {};
        if (typeof channel !== 'string' || channel.length === 0) {
          client.send({ type: 'error', code: 'BAD_REQUEST', error: 'Name a channel' });
          return;
        }
        if (channel.length > MAX_CHANNEL_LENGTH) {
          const error = `Channel names are at most ${MAX_CHANNEL_LENGTH} characters; this one has ${channel.length}`;
          client.send({ type: 'error', code: 'CHANNEL_TOO_LONG', error });
          return;
        }
        const run = async () => {
          if (op === 'subscribe') {
            if (client.subscriptions.size >= MAX_SUBSCRIPTIONS) {
              throw new StreamError('TOO_MANY_SUBSCRIPTIONS', `At most ${MAX_SUBSCRIPTIONS} subscriptions`);
            }
            await stream.subscribe(client, channel, lastSeqOf(lastSeq));
          } else if (op === 'unsubscribe') stream.unsubscribe(client, channel);
          else if (op === 'resync') await stream.resync(client, channel);
          else throw new StreamError('BAD_REQUEST', 'op must be subscribe, unsubscribe or resync');
        };
        run().catch((error: unknown) => {
          if (error instanceof StreamError)
            client.send({ type: 'error', code: error.code, error: error.message, channel });
          else if (isDatabaseUnavailable(error))
            client.send({ type: 'error', code: 'DATABASE_UNAVAILABLE', error: 'Retry shortly', channel });
          else {
            request.log.error({ err: error }, 'stream request failed');
            client.send({ type: 'error', code: 'INTERNAL_ERROR', error: 'Something went wrong', channel });
          }
        });
      };
    },
  );
};

/** The `lastSeq` of a subscribe message: absent, or a whole number from 0. */
function lastSeqOf(value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new StreamError('BAD_REQUEST', 'lastSeq must be a whole number, 0 or more');
}

export const streamReplayRoutes: FastifyPluginAsyncTypebox<{ window: StreamWindow }> = async (
  app,
  { window },
) => {
  app.get(
    '/api/stream/replay',
    {
      schema: {
        tags: ['Market data'],
        summary: 'The stream messages of a book or trades channel from a seq',
        description:
          'The `delta` (book) or `trades` messages the stream sent from `fromSeq` on, as a subscription resumed ' +
          'with `lastSeq` = fromSeq − 1 receives them, from the window every instance shares: the last ' +
          '`STREAM_WINDOW_MESSAGES` (default 1000) changes of each option, for at most `STREAM_WINDOW_SECONDS` ' +
          '(default 300). ' +
          'Older than that: 410 `SEQ_OUTSIDE_WINDOW`; start again from `GET /api/orderbook/{optionId}`.',
        querystring: ReplayQuery,
        response: { 200: Replay, ...errors(400, 404, 410) },
      },
    },
    async (request) =>
      window.replay(request.query.channel, request.query.fromSeq, request.query.limit ?? 100),
  );
};
