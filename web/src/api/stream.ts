import { sessionToken } from './client';

/**
 * One WebSocket to the service's stream (`/api/stream`), shared by every live view on the page: each channel is
 * subscribed once, resubscribed after a reconnect, and dropped when its last reader leaves. Signed in, the socket
 * carries the session token, so the `user` channel (your orders, fills and notifications) works on it too.
 */

export interface StreamMessage {
  type: string;
  channel?: string;
  seq?: number;
  [field: string]: unknown;
}

/** `live`: connected; `connecting`: the first attempt; `down`: lost or refused, trying again with back-off. */
export type StreamStatus = 'connecting' | 'live' | 'down';

type Handler = (message: StreamMessage) => void;
type StatusListener = (status: StreamStatus) => void;

const MAX_RETRY_MS = 30_000;
const IDLE_CLOSE_MS = 10_000;

class StreamConnection {
  private socket: WebSocket | null = null;
  private current: StreamStatus = 'connecting';
  private attempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly statusListeners = new Set<StatusListener>();

  constructor() {
    // A new session (or none): the user channel belongs to someone else now, so start a new connection.
    sessionToken.subscribe(() => {
      if (!this.socket) return;
      const old = this.socket;
      this.socket = null;
      old.onclose = null;
      old.close();
      this.setStatus('connecting');
      if (this.handlers.size > 0) this.connect();
    });
  }

  get available(): boolean {
    return typeof WebSocket === 'function';
  }

  get status(): StreamStatus {
    return this.current;
  }

  get isConnected(): boolean {
    return this.current === 'live';
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
    if (this.current === 'live') this.socket?.send(JSON.stringify(message));
  }

  private setStatus(status: StreamStatus): void {
    if (this.current === status) return;
    this.current = status;
    for (const listener of this.statusListeners) listener(status);
  }

  private connect(): void {
    if (this.socket || !this.available || this.retryTimer) return;
    const token = sessionToken.get();
    const query = token ? `?token=${encodeURIComponent(token)}` : '';
    const socket = new WebSocket(
      `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/stream${query}`,
    );
    this.socket = socket;
    socket.onopen = () => {
      this.attempts = 0;
      this.setStatus('live');
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
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus('down');
      if (this.handlers.size === 0) return;
      // Back off while the stream is down; readers fall back to what they read last, and say so.
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
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.close();
    }
    this.setStatus('connecting');
  }
}

export const stream = new StreamConnection();
