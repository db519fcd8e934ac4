/**
 * One WebSocket to the service's market-data stream (`/api/stream`), shared by every live view on the page:
 * each channel is subscribed once, resubscribed after a reconnect, and dropped when its last reader leaves.
 */

export interface StreamMessage {
  type: string;
  channel?: string;
  seq?: number;
  [field: string]: unknown;
}

type Handler = (message: StreamMessage) => void;
type StatusListener = (connected: boolean) => void;

const MAX_RETRY_MS = 30_000;
const IDLE_CLOSE_MS = 10_000;

class StreamConnection {
  private socket: WebSocket | null = null;
  private connected = false;
  private attempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly statusListeners = new Set<StatusListener>();

  get available(): boolean {
    return typeof WebSocket === 'function';
  }

  get isConnected(): boolean {
    return this.connected;
  }

  subscribe(channel: string, handler: Handler): () => void {
    let readers = this.handlers.get(channel);
    if (!readers) {
      readers = new Set();
      this.handlers.set(channel, readers);
      this.send({ op: 'subscribe', channel });
    }
    readers.add(handler);
    clearTimeout(this.idleTimer);
    this.connect();
    return () => {
      const current = this.handlers.get(channel);
      current?.delete(handler);
      if (current && current.size === 0) {
        this.handlers.delete(channel);
        this.send({ op: 'unsubscribe', channel });
      }
      if (this.handlers.size === 0) {
        clearTimeout(this.idleTimer);
        this.idleTimer = setTimeout(() => this.close(), IDLE_CLOSE_MS);
      }
    };
  }

  onStatus(listener: StatusListener): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  send(message: { op: string; channel: string }): void {
    if (this.connected) this.socket?.send(JSON.stringify(message));
  }

  private setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    for (const listener of this.statusListeners) listener(connected);
  }

  private connect(): void {
    if (this.socket || !this.available || this.retryTimer) return;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/stream`;
    const socket = new WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.attempts = 0;
      this.setConnected(true);
      for (const channel of this.handlers.keys()) this.send({ op: 'subscribe', channel });
    };
    socket.onmessage = (event) => {
      let message: StreamMessage;
      try {
        message = JSON.parse(String(event.data)) as StreamMessage;
      } catch {
        return;
      }
      if (typeof message.channel !== 'string') return;
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message);
    };
    socket.onclose = () => {
      this.socket = null;
      this.setConnected(false);
      if (this.handlers.size === 0) return;
      // Back off while the stream is down; readers fall back to polling meanwhile.
      const delay = Math.min(MAX_RETRY_MS, 1000 * 2 ** this.attempts);
      this.attempts += 1;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.connect();
      }, delay);
    };
  }

  private close(): void {
    if (this.handlers.size > 0) return;
    this.socket?.close();
    this.socket = null;
    this.setConnected(false);
  }
}

export const stream = new StreamConnection();
