import type { Metrics } from '../../../platform/metrics.js';

export type BatchStep = 'lock' | 'hold' | 'decide_write' | 'answer' | 'announce' | 'commit';

/**
 * The wall time of one transaction's steps, added up in `exchange_order_batch_step_seconds_total`: where the time
 * under a market's lock goes (the lock step is the wait for it, with the batch before it ending here).
 */
export class StepClock {
  private last = performance.now();

  constructor(private readonly metrics: Metrics | null) {}

  /** Ends a step; `took`, once, counts the transaction, the requests it took and the markets it locked. */
  lap(step: BatchStep, took?: { requests: number; markets: number }): void {
    const now = performance.now();
    this.metrics?.batchStepSeconds.inc({ step }, (now - this.last) / 1000);
    if (took && took.requests > 0) {
      this.metrics?.batchRequests.inc(took.requests);
      this.metrics?.batchTransactions.inc();
      this.metrics?.batchMarkets.inc(took.markets);
    }
    this.last = now;
  }
}
