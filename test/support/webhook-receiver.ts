import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}

/** What the receiver answers to its n-th request (0-based): a status (and headers), or no answer at all. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records every webhook POSTed to it. */
export async function startReceiver(
  answer: (n: number) => Answer = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const n = received.length;
      received.push({ headers: req.headers, body, json: JSON.parse(body) });
      const reply = answer(n);
      if (reply === 'hang') return;
      res.writeHead(reply.status, reply.headers ?? {});
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The documented verification: HMAC-SHA256 of "id.timestamp.body" keyed with the decoded secret, v1 scheme. */
export function verifyWebhook(secret: string, headers: IncomingHttpHeaders, rawBody: string): boolean {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}
