import { describe, expect, it } from 'vitest';
import { RequestDeadlineError } from '../../../../src/modules/trading/errors.js';
import type { Cycle } from '../../../../src/modules/trading/pipeline/cycle.js';
import { MarketWriter } from '../../../../src/modules/trading/pipeline/writer.js';
import type { MarketRef } from '../../../../src/modules/trading/repository.js';
import type { BookOutcome, BookRequest } from '../../../../src/modules/trading/types.js';

/**
 * The writer's bookkeeping of queues and transactions, driven by hand: each transaction is held until the test lets
 * it take its requests and commit, so that the orders of events under load can be played exactly.
 */

interface Held {
  cycle: Cycle;
  commit: (outcomes: BookOutcome[][]) => void;
}

const DEADLINE_MS = 100;
const market: MarketRef = { kind: 'option', optionId: 7 };

function writerByHand() {
  const held: Held[] = [];
  const writer = new MarketWriter(
    {
      maxQueuedOrdersPerOption: 100,
      transactionsPerMarket: 2,
      maxBatchOrders: 10,
      maxCycleRequests: 100,
      requestDeadlineMs: DEADLINE_MS,
    },
    (cycle) => new Promise((resolve) => held.push({ cycle, commit: resolve })),
    { log: { warn: () => {} }, metrics: null },
  );
  return { writer, held };
}

/** A request, and what became of it once settled (null while it waits). */
function send(writer: MarketWriter, name: string) {
  const state: { settled: string | null } = { settled: null };
  writer.submit(market, { type: 'cancel', name } as unknown as BookRequest).then(
    (outcome) => {
      state.settled = JSON.stringify(outcome);
    },
    (error: unknown) => {
      state.settled = error instanceof RequestDeadlineError ? 'deadline' : String(error);
    },
  );
  return state;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Long enough for answers held while another transaction writes (at most 10 ms) to go. */
const answered = () => sleep(30);

/** Takes a held transaction's requests and commits it, each answered with its name. */
async function takeAndCommit(transaction: Held): Promise<void> {
  const taken = transaction.cycle.take();
  transaction.commit(taken.map((list) => list.map((request) => ({ result: request }) as BookOutcome)));
  await turn();
}

describe('the writer', () => {
  it('answers a request queued behind a transaction whose market’s queue was dropped and made anew meanwhile', async () => {
    const { writer, held } = writerByHand();
    // A takes the first request and stays under way.
    const first = send(writer, 'first');
    await turn();
    expect(held).toHaveLength(1);
    held[0]?.cycle.take();
    // B is started for the second request and waits for its locks until that request is past its deadline.
    const second = send(writer, 'second');
    await turn();
    expect(held).toHaveLength(2);
    await sleep(DEADLINE_MS * 3);
    expect(second.settled).toBe('deadline');
    // A commits: the market's queue, empty, is dropped.
    held[0]?.commit([[{ result: 'first' } as unknown as BookOutcome]]);
    await answered();
    expect(first.settled).toContain('first');
    // A third request makes the market's queue anew; B takes nothing, and C is started for it and takes it.
    const third = send(writer, 'third');
    await turn();
    const b = held[1] as Held;
    const nothing = b.cycle.take();
    expect(nothing).toEqual([[]]);
    await turn();
    expect(held).toHaveLength(3);
    held[2]?.cycle.take();
    // A fourth request waits in the new queue while B and C are under way; B's end must not drop that queue.
    const fourth = send(writer, 'fourth');
    await turn();
    b.commit([[]]);
    await answered();
    held[2]?.commit([[{ result: 'third' } as unknown as BookOutcome]]);
    await answered();
    expect(third.settled).toContain('third');
    // The fourth is taken by the next transaction, or at worst answered at its deadline: never left waiting.
    await sleep(DEADLINE_MS * 3);
    if (held[3]) await takeAndCommit(held[3]);
    expect(fourth.settled).not.toBeNull();
    expect(held).toHaveLength(4);
    await writer.drain();
  });

  it('answers every request past its deadline that no transaction took', async () => {
    const { writer, held } = writerByHand();
    const first = send(writer, 'first');
    await turn();
    await sleep(DEADLINE_MS * 3);
    expect(first.settled).toBe('deadline');
    // The transaction that gets its locks afterwards finds nothing left to take.
    const transaction = held[0] as Held;
    expect(transaction.cycle.take()).toEqual([[]]);
    transaction.commit([[]]);
    await writer.drain();
  });
});
