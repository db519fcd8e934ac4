import WebSocket from 'ws';
import { inParallel } from './harness.js';

export interface Flood {
  accepted: WebSocket[];
  /** Handshakes refused, by status and error code. */
  refused: Map<string, number>;
  /** Refused handshakes without Retry-After. */
  withoutRetryAfter: number;
  /** Connections that failed otherwise (reset, timed out). */
  failed: number;
  close(): void;
}

/**
 * Opens `count` stream connections from one address (`localAddress`, a loopback alias such as 127.0.0.2, so that
 * the load's own connections from 127.0.0.1 are not counted with them), each subscribing to `channel`.
 */
export async function floodStreams(
  url: string,
  count: number,
  localAddress: string,
  channel: string,
): Promise<Flood> {
  const flood: Flood = {
    accepted: [],
    refused: new Map(),
    withoutRetryAfter: 0,
    failed: 0,
    close() {
      for (const socket of this.accepted) socket.terminate();
    },
  };
  await inParallel(
    Array.from({ length: count }, (_, i) => i),
    100,
    () =>
      new Promise<void>((done) => {
        let settled = false;
        const resolve = () => {
          settled = true;
          done();
        };
        const socket = new WebSocket(url, { localAddress, handshakeTimeout: 10_000 });
        socket.once('open', () => {
          flood.accepted.push(socket);
          socket.send(JSON.stringify({ op: 'subscribe', channel }));
          resolve();
        });
        socket.once('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk;
          });
          response.on('end', () => {
            let code = 'none';
            try {
              code = (JSON.parse(body) as { code?: string }).code ?? 'none';
            } catch {
              // not JSON: counted as code "none"
            }
            const key = `${response.statusCode} ${code}`;
            flood.refused.set(key, (flood.refused.get(key) ?? 0) + 1);
            if (response.headers['retry-after'] === undefined) flood.withoutRetryAfter += 1;
            resolve();
          });
        });
        socket.on('error', () => {
          if (settled) return;
          flood.failed += 1;
          resolve();
        });
      }),
  );
  return flood;
}
