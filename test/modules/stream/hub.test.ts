import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { StreamClient, StreamHub } from '../../../src/modules/stream/hub.js';

/** A client whose socket keeps what it is sent. */
function fakeClient() {
  const sent: Record<string, unknown>[] = [];
  const socket = { OPEN: 1, readyState: 1, send: (text: string) => sent.push(JSON.parse(text)) };
  return { client: new StreamClient(socket as unknown as WebSocket, null), sent };
}

describe('the stream hub', () => {
  it('sends each seq of a channel once, however late its notice is heard after a snapshot or a replay', () => {
    const hub = new StreamHub();
    const { client, sent } = fakeClient();
    hub.add(client, 'book:1', false);
    hub.publish('book:1', { type: 'delta', channel: 'book:1', seq: 4 });
    hub.publish('book:1', { type: 'delta', channel: 'book:1', seq: 6 });
    // What the client was sent up to seq 5 (a snapshot, or the messages replayed from the window).
    hub.markReady(client, 'book:1', 5);
    // The notice of seq 5, committed before the read, heard after it.
    hub.publish('book:1', { type: 'delta', channel: 'book:1', seq: 5 });
    hub.publish('book:1', { type: 'resync', channel: 'book:1', reason: 'r' });
    hub.publish('book:1', { type: 'delta', channel: 'book:1', seq: 7 });
    expect(sent.map((m) => m.seq ?? m.type)).toEqual([6, 'resync', 7]);
  });
});
