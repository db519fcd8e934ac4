import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * A TCP proxy that a fault test owns, between the service and a server it depends on (PostgreSQL, Redis), so that
 * faults can be made without touching the shared server: cut every connection, refuse new ones, or stall traffic
 * (nothing forwarded either way, nothing closed) and later let it through.
 */
export class TcpProxy {
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private readonly held: (() => void)[] = [];
  private mode: 'pass' | 'refuse' | 'stall' = 'pass';
  private server: Server | null = null;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async listen(): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return this.port;
  }

  /** Connections open through the proxy now. */
  get connections(): number {
    return this.pairs.size;
  }

  /** Resets every open connection at once (both sides see the connection die). */
  cutAll(): void {
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    this.pairs.clear();
  }

  /** Cuts every connection and resets every new one until `pass()`. */
  refuse(): void {
    this.mode = 'refuse';
    this.cutAll();
  }

  /** Forwards nothing either way, closes nothing, and holds new connections unanswered until `pass()`. */
  stall(): void {
    this.mode = 'stall';
  }

  /** Back to normal: held connections and stalled traffic go through. */
  pass(): void {
    this.mode = 'pass';
    for (const release of this.held.splice(0)) release();
  }

  async close(): Promise<void> {
    this.pass();
    this.cutAll();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    client.on('error', () => {});
    if (this.mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    const upstream = tcpConnect(this.targetPort, this.targetHost);
    upstream.on('error', () => {});
    const pair = { client, upstream };
    this.pairs.add(pair);
    const close = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  /** Copies `from` to `to`, keeping what arrives while stalled until traffic is let through. */
  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (this.mode !== 'stall') {
        to.write(chunk);
        return;
      }
      from.pause();
      this.held.push(() => {
        to.write(chunk);
        from.resume();
      });
    });
  }
}
