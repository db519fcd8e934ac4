/**
 * A webhook receiver that verifies every delivery with the `standardwebhooks` package before trusting it.
 *
 *   npm run example:webhooks                       # subscribes itself with a fresh demo account (see docs/api.md)
 *   WEBHOOK_SECRET=whsec_… PORT=4000 npm run example:webhooks   # for a subscription you created yourself
 *
 * Without WEBHOOK_SECRET it signs in (PMX_TOKEN, or a fresh account) and creates a subscription to its own URL,
 * which the service accepts only with WEBHOOK_ALLOW_PRIVATE=true (a receiver on localhost). Each verified delivery
 * is printed as a JSON line and answered 204; a bad or missing signature is answered 400 and printed as "rejected".
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { createClient } from '../clients/typescript/src/index.js';

const BASE_URL = process.env.PMX_URL ?? 'http://localhost:3000';
const PORT = Number(process.env.PORT ?? 4000);
const HOST = process.env.HOST ?? '127.0.0.1';

const log = (event: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ event, ...fields }));

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Creates a subscription to `url` for PMX_TOKEN (or a fresh account) and returns its signing secret. */
async function subscribe(url: string): Promise<string> {
  let token = process.env.PMX_TOKEN;
  if (!token) {
    const email = `hooks-${randomBytes(4).toString('hex')}@example.com`;
    const { data, error } = await createClient({ baseUrl: BASE_URL }).POST('/api/auth/register', {
      body: { email, password: randomBytes(12).toString('base64url') },
    });
    if (!data) throw new Error(`cannot register: ${error?.error}`);
    token = data.token;
    log('registered', { email });
  }
  const api = createClient({ baseUrl: BASE_URL, token });
  const { data, error } = await api.POST('/api/me/webhooks', {
    body: { url, description: 'example receiver' },
  });
  if (!data) throw new Error(`cannot subscribe ${url}: ${error?.code} ${error?.error}`);
  log('subscribed', { subscriptionId: data.id, url });
  return data.secret;
}

async function main(): Promise<void> {
  let webhook: Webhook | null = process.env.WEBHOOK_SECRET ? new Webhook(process.env.WEBHOOK_SECRET) : null;
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    try {
      if (!webhook) throw new WebhookVerificationError('not subscribed yet');
      const event = webhook.verify(body, request.headers as Record<string, string>) as { type: string };
      log('verified', { webhookId: request.headers['webhook-id'], type: event.type, body: event });
      response.writeHead(204).end();
    } catch (error) {
      log('rejected', { reason: error instanceof Error ? error.message : String(error) });
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(PORT, HOST, resolve));
  const url = `http://${HOST}:${(server.address() as AddressInfo).port}/webhooks`;
  log('listening', { url });
  webhook ??= new Webhook(await subscribe(url));
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  log('error', { error: String(error) });
  process.exit(1);
});
