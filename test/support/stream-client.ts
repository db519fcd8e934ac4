import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { asyncapiDocument } from '../../src/openapi/asyncapi.js';
import type { TestApp } from './app.js';
import { contractViolations, StreamContract } from './contract.js';

const streamContract = new StreamContract(asyncapiDocument('http://localhost:3000'));

/** Makes the app listen on a free port and returns the stream's URL. */
export async function streamUrl(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api/stream`;
}

/**
 * A WebSocket client that queues what it receives, so a test can wait for the next message of a kind. Every
 * message is checked against the AsyncAPI document (a mismatch fails the test, as for HTTP responses).
 */
export class StreamTestClient {
  private readonly messages: Record<string, unknown>[] = [];
  private waiters: (() => void)[] = [];
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as Record<string, unknown>;
      contractViolations.push(...streamContract.check(message));
      this.messages.push(message);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(url: string): Promise<StreamTestClient> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new StreamTestClient(socket);
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  async next(
    match: (m: Record<string, unknown>) => boolean,
    timeoutMs = 5000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.messages.findIndex(match);
      if (index >= 0) return this.messages.splice(index, 1)[0] as Record<string, unknown>;
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** What has arrived and not been taken by `next`. */
  pending(): Record<string, unknown>[] {
    return [...this.messages];
  }

  close(): void {
    this.socket.close();
  }
}
