import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';

/**
 * Bounds on what one address may hold open, so that a single client cannot exhaust the connections, memory or
 * event loop every other client shares. A trusted proxy (`TRUST_PROXY`) carries many clients on its connections:
 * its own address is never bounded, and the clients it names are bounded each on their own.
 */

/** Whether a peer is a proxy `TRUST_PROXY` trusts, with the same rules Fastify applies to `X-Forwarded-For`. */
export function trustedPeer(trustProxy: boolean | string): (address: string) => boolean {
  if (trustProxy === true) return () => true;
  if (trustProxy === false) return () => false;
  const trust = proxyAddr.compile(trustProxy.split(',').map((value) => value.trim()));
  return (address) => trust(address, 0);
}

/** How many connections of one kind each address holds, against a bound. */
export class AddressBudget {
  private readonly held = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Counts one more connection for `address`; false (and nothing counted) when it holds `limit` already. */
  take(address: string): boolean {
    const count = this.held.get(address) ?? 0;
    if (count >= this.limit) return false;
    this.held.set(address, count + 1);
    return true;
  }

  give(address: string): void {
    const count = (this.held.get(address) ?? 0) - 1;
    if (count > 0) this.held.set(address, count);
    else this.held.delete(address);
  }

  count(address: string): number {
    return this.held.get(address) ?? 0;
  }
}

interface Tracked {
  address: string;
  /** Requests being answered on this connection (more than one when the client pipelines). */
  busy: number;
  /** Taken over by a WebSocket: bounded by the stream's own budget, never idle. */
  upgraded: boolean;
  closed: boolean;
}

/**
 * Counts the HTTP connections each address holds open with no request in progress (idle keep-alive connections,
 * and connections that have not yet sent one). `closeAfterResponse` tells whether a response should end its
 * connection (`Connection: close`) rather than leave it idle: when its address already holds `maxIdle` idle ones.
 * So an address can keep at most `maxIdle` connections idle; any more are closed, cleanly, after their answer.
 */
export class IdleConnections {
  private readonly sockets = new WeakMap<Socket, Tracked>();
  private readonly idle = new Map<string, number>();

  constructor(
    server: Server,
    private readonly maxIdle: number,
    private readonly exempt: (address: string) => boolean,
  ) {
    server.on('connection', (socket: Socket) => this.opened(socket));
    server.on('request', (request: { socket: Socket }, response: NodeJS.EventEmitter) => {
      const tracked = this.sockets.get(request.socket);
      if (!tracked) return;
      if (tracked.busy++ === 0 && !tracked.closed) this.add(tracked.address, -1);
      response.once('close', () => {
        if (--tracked.busy === 0 && !tracked.closed) this.add(tracked.address, 1);
      });
    });
    server.on('upgrade', (request: { socket: Socket }) => {
      const tracked = this.sockets.get(request.socket);
      if (!tracked || tracked.upgraded || tracked.closed) return;
      tracked.upgraded = true;
      if (tracked.busy === 0) this.add(tracked.address, -1);
    });
  }

  /** Idle connections `address` holds now. */
  count(address: string): number {
    return this.idle.get(address) ?? 0;
  }

  /** True when the response to a request on `socket` should close it instead of leaving one more idle. */
  closeAfterResponse(socket: Socket): boolean {
    const tracked = this.sockets.get(socket);
    return (
      tracked !== undefined && !this.exempt(tracked.address) && this.count(tracked.address) >= this.maxIdle
    );
  }

  private opened(socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    const tracked: Tracked = { address, busy: 0, upgraded: false, closed: false };
    this.sockets.set(socket, tracked);
    this.add(address, 1);
    socket.once('close', () => {
      if (tracked.busy === 0 && !tracked.upgraded) this.add(address, -1);
      tracked.closed = true;
    });
  }

  private add(address: string, delta: number): void {
    const count = (this.idle.get(address) ?? 0) + delta;
    if (count > 0) this.idle.set(address, count);
    else this.idle.delete(address);
  }
}
