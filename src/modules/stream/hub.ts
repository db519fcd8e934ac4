import type { WebSocket } from 'ws';

/** What the server sends. Book messages carry the book version as `seq`: consecutive for each option. */
export type ServerMessage = Record<string, unknown> & { type: string };

interface Subscription {
  /** Book channels wait for their snapshot; messages that arrive meanwhile are kept in order. */
  ready: boolean;
  buffered: ServerMessage[];
  /**
   * The last seq the client has (from a snapshot, a replay or a message): a notice of a change committed before a
   * snapshot or a replay was read may be heard after it was sent, and is then not sent again.
   */
  seq: number;
}

export class StreamClient {
  readonly subscriptions = new Map<string, Subscription>();

  constructor(
    readonly socket: WebSocket,
    readonly userId: number | null,
  ) {}

  send(message: ServerMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }
}

/** The subscribers of each channel on this instance. */
export class StreamHub {
  private readonly channels = new Map<string, Set<StreamClient>>();

  add(client: StreamClient, channel: string, ready: boolean): void {
    client.subscriptions.set(channel, { ready, buffered: [], seq: -1 });
    let members = this.channels.get(channel);
    if (!members) {
      members = new Set();
      this.channels.set(channel, members);
    }
    members.add(client);
  }

  remove(client: StreamClient, channel: string): void {
    client.subscriptions.delete(channel);
    const members = this.channels.get(channel);
    members?.delete(client);
    if (members?.size === 0) this.channels.delete(channel);
  }

  drop(client: StreamClient): void {
    for (const channel of [...client.subscriptions.keys()]) this.remove(client, channel);
  }

  /** True when some channel whose name starts with `prefix` has a subscriber on this instance. */
  hasChannelStartingWith(prefix: string): boolean {
    for (const channel of this.channels.keys()) if (channel.startsWith(prefix)) return true;
    return false;
  }

  /** Every channel with a subscriber on this instance. */
  channelNames(): string[] {
    return [...this.channels.keys()];
  }

  members(channel: string): StreamClient[] {
    return [...(this.channels.get(channel) ?? [])];
  }

  /** Sends to every subscriber of a channel, or keeps it for those still waiting for their snapshot. */
  publish(channel: string, message: ServerMessage): void {
    for (const client of this.channels.get(channel) ?? []) {
      const subscription = client.subscriptions.get(channel);
      if (!subscription) continue;
      if (!subscription.ready) subscription.buffered.push(message);
      else if (typeof message.seq !== 'number') client.send(message);
      else if (message.seq > subscription.seq) {
        subscription.seq = message.seq;
        client.send(message);
      }
    }
  }

  /** Marks a book subscription live after its snapshot at `seq`: sends what came after it, drops the rest. */
  markReady(client: StreamClient, channel: string, seq: number): void {
    const subscription = client.subscriptions.get(channel);
    if (!subscription) return;
    subscription.seq = seq;
    for (const message of subscription.buffered) {
      if (typeof message.seq !== 'number') client.send(message);
      else if (message.seq > subscription.seq) {
        subscription.seq = message.seq;
        client.send(message);
      }
    }
    subscription.buffered = [];
    subscription.ready = true;
  }

  get connections(): number {
    const clients = new Set<StreamClient>();
    for (const members of this.channels.values()) for (const client of members) clients.add(client);
    return clients.size;
  }
}
