import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../support/app.js';

const LIMITS = { STREAM_MAX_CONNECTIONS_PER_ADDRESS: '5', HTTP_MAX_IDLE_CONNECTIONS_PER_ADDRESS: '3' };

async function listening(env: Record<string, string>): Promise<{ t: TestApp; port: number }> {
  const t = await createTestApp({ env: { ...LIMITS, ...env } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  return { t, port: typeof address === 'object' && address ? address.port : 0 };
}

type Opened = { socket: WebSocket; status: 101 } | { status: number; body: string; retryAfter?: string };

/** A stream connection: open (101), or the status, body and Retry-After of the refused handshake. */
function openStream(
  port: number,
  options: { localAddress?: string; forwardedFor?: string } = {},
): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/stream`, {
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      ...(options.forwardedFor ? { headers: { 'x-forwarded-for': options.forwardedFor } } : {}),
    });
    socket.once('open', () => resolve({ socket, status: 101 }));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body,
          ...(response.headers['retry-after'] ? { retryAfter: String(response.headers['retry-after']) } : {}),
        }),
      );
    });
    socket.once('error', reject);
  });
}

/**
 * One keep-alive connection that sends one request and then stays idle; resolves with the response's Connection
 * header and the socket (closed by the server, or still open).
 */
function idleConnection(port: number): Promise<{ socket: Socket; connection: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let head = '';
    socket.on('error', reject);
    socket.once('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: exchange\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => {
      head += chunk;
      const match = /\r\nconnection: ([^\r]+)\r\n/i.exec(head);
      if (head.includes('\r\n\r\n'))
        resolve({ socket, connection: match?.[1]?.toLowerCase() ?? 'keep-alive' });
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('per-address connection bounds', () => {
  let bounded: { t: TestApp; port: number };
  let proxied: { t: TestApp; port: number };
  const opened: { close(): void }[] = [];

  beforeAll(async () => {
    bounded = await listening({});
    proxied = await listening({ TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const item of opened) item.close();
    await bounded.t.close();
    await proxied.t.close();
  });

  const keep = (result: Opened): Opened => {
    if ('socket' in result) opened.push(result.socket);
    return result;
  };

  it('refuses the stream handshake past the bound with 429 TOO_MANY_CONNECTIONS and Retry-After, per address', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => openStream(bounded.port).then(keep)));
    expect(results.filter((r) => r.status === 101)).toHaveLength(5);
    const refused = results.filter((r): r is Extract<Opened, { body: string }> => r.status !== 101);
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429]);
    for (const r of refused) {
      expect(JSON.parse(r.body)).toMatchObject({ code: 'TOO_MANY_CONNECTIONS', details: { limit: 5 } });
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    // Another address has a budget of its own.
    expect((await openStream(bounded.port, { localAddress: '127.0.0.2' }).then(keep)).status).toBe(101);
    // A connection that closes gives its place back.
    const first = results.find((r): r is Extract<Opened, { socket: WebSocket }> => r.status === 101);
    first?.socket.close();
    let again = await openStream(bounded.port).then(keep);
    for (let i = 0; i < 20 && again.status !== 101; i++) {
      await sleep(50);
      again = await openStream(bounded.port).then(keep);
    }
    expect(again.status).toBe(101);
  });

  it('bounds each client a trusted proxy names, never the proxy itself', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => openStream(proxied.port, { forwardedFor: '203.0.113.7' }).then(keep)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([101, 101, 101, 101, 101, 429]);
    const others = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        openStream(proxied.port, { forwardedFor: `203.0.113.${20 + i}` }).then(keep),
      ),
    );
    expect(others.map((r) => r.status)).toEqual([101, 101, 101, 101, 101, 101]);
  });

  it('keeps at most the bound of idle keep-alive connections per address; the rest close after their answer', async () => {
    const answers: { socket: Socket; connection: string }[] = [];
    for (let i = 0; i < 10; i++) answers.push(await idleConnection(bounded.port));
    for (const answer of answers) opened.push({ close: () => answer.socket.destroy() });
    expect(answers.map((a) => a.connection)).toEqual([
      'keep-alive',
      'keep-alive',
      'keep-alive',
      ...Array.from({ length: 7 }, () => 'close'),
    ]);
    await sleep(200);
    expect(answers.filter((a) => !a.socket.readableEnded && !a.socket.destroyed)).toHaveLength(3);
    // An answer after one of them has gone keeps its connection again.
    answers[0]?.socket.destroy();
    await sleep(100);
    const later = await idleConnection(bounded.port);
    opened.push({ close: () => later.socket.destroy() });
    expect(later.connection).toBe('keep-alive');
  });

  it("never closes a trusted proxy's idle connections", async () => {
    const answers: { socket: Socket; connection: string }[] = [];
    for (let i = 0; i < 10; i++) answers.push(await idleConnection(proxied.port));
    for (const answer of answers) opened.push({ close: () => answer.socket.destroy() });
    expect(answers.every((a) => a.connection === 'keep-alive')).toBe(true);
  });
});
