import websocket from '@fastify/websocket';
import type { FastifyPluginAsync } from 'fastify';
import type { CredentialResolver } from '../../platform/auth.js';
import { StreamClient } from './hub.js';
import { StreamError, type StreamService } from './service.js';

const MAX_SUBSCRIPTIONS = 100;

const DESCRIPTION = `WebSocket. Connect with \`Authorization: Bearer <key>\` or \`?token=<key>\` (needed only for the user
channel), then send JSON messages:

- \`{"op":"subscribe","channel":"book:<optionId>"}\`: a \`snapshot\` of the option's YES ladder (\`bids\`, \`asks\`: price,
  quantity, orders, houseQuantity; a NO price is 100 − the YES price), then a \`delta\` after every change with the
  levels it changed, as they now stand (quantity 0 = gone). Every book message carries \`seq\`, the book version:
  consecutive per option. A client that sees a gap sends \`{"op":"resync","channel":"book:<optionId>"}\` and gets a
  fresh snapshot.
- \`{"op":"subscribe","channel":"trades:<optionId>"}\`: \`trades\` messages with the executions (YES price, quantity,
  taker's side and action, time).
- \`{"op":"subscribe","channel":"user"}\`: your \`order\` updates (placed, filled, cancelled, expired) and \`fill\`s.
- \`{"op":"unsubscribe","channel":"..."}\`.

Errors come as \`{"type":"error","code":...,"error":...}\`. At most ${MAX_SUBSCRIPTIONS} subscriptions per connection.
Changes are published when they commit, on every instance.`;

interface ClientMessage {
  op?: unknown;
  channel?: unknown;
}

export const streamRoutes: FastifyPluginAsync<{
  stream: StreamService;
  resolve: CredentialResolver;
}> = async (app, { stream, resolve }) => {
  await app.register(websocket, { options: { maxPayload: 4096 } });

  app.get(
    '/api/stream',
    {
      websocket: true,
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
      })().then((client) => {
        if (!client) socket.close(4401, 'invalid credentials');
        return client;
      });
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
        const { op, channel } = message ?? {};
        if (typeof channel !== 'string' || channel.length > 64) {
          client.send({ type: 'error', code: 'BAD_REQUEST', error: 'Name a channel' });
          return;
        }
        const run = async () => {
          if (op === 'subscribe') {
            if (client.subscriptions.size >= MAX_SUBSCRIPTIONS) {
              throw new StreamError('TOO_MANY_SUBSCRIPTIONS', `At most ${MAX_SUBSCRIPTIONS} subscriptions`);
            }
            await stream.subscribe(client, channel);
          } else if (op === 'unsubscribe') stream.unsubscribe(client, channel);
          else if (op === 'resync') await stream.resync(client, channel);
          else throw new StreamError('BAD_REQUEST', 'op must be subscribe, unsubscribe or resync');
        };
        run().catch((error: unknown) => {
          if (error instanceof StreamError)
            client.send({ type: 'error', code: error.code, error: error.message, channel });
          else {
            request.log.error({ err: error }, 'stream request failed');
            client.send({ type: 'error', code: 'INTERNAL_ERROR', error: 'Something went wrong', channel });
          }
        });
      };
    },
  );
};
