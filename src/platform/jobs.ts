import type { FastifyBaseLogger } from 'fastify';
import { databaseCondition } from './db/types.js';
import type { Metrics } from './metrics.js';

/**
 * A background job is a plain service method that claims due work from the database (FOR UPDATE SKIP LOCKED),
 * does it, and returns how many items it handled. Every instance runs every job; the database decides who gets
 * which item, so nothing depends on one instance being special.
 */
export type Job = () => Promise<number>;

export class JobRunner {
  private readonly jobs = new Map<string, { job: Job; intervalMs: number | null }>();
  private timers: NodeJS.Timeout[] = [];
  private running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly metrics: Metrics,
  ) {}

  /** `intervalMs`: how often it runs, when not at the runner's interval. */
  register(name: string, job: Job, intervalMs: number | null = null): void {
    if (this.jobs.has(name)) throw new Error(`job ${name} is registered twice`);
    this.jobs.set(name, { job, intervalMs });
  }

  names(): string[] {
    return [...this.jobs.keys()];
  }

  /** Runs one job now until it finds no more work; returns the items handled. Tests use this. */
  async runNow(name: string): Promise<number> {
    const job = this.jobs.get(name)?.job;
    if (!job) throw new Error(`no job named ${name}`);
    let total = 0;
    for (;;) {
      const handled = await job();
      total += handled;
      if (handled === 0) return total;
    }
  }

  start(intervalMs: number): void {
    this.stopped = false;
    for (const [name, { job, intervalMs: own }] of this.jobs) {
      let busy = false;
      const tick = async () => {
        if (busy || this.stopped) return;
        busy = true;
        const run = (async () => {
          try {
            const handled = await job();
            this.metrics.jobRuns.inc({ job: name, outcome: handled > 0 ? 'worked' : 'idle' });
          } catch (err) {
            // A failed run is retried on the next tick; the database out of reach, read-only or full is a fault it
            // survives (a warning without a stack), anything else an error.
            this.metrics.jobRuns.inc({ job: name, outcome: 'failed' });
            const condition = databaseCondition(err);
            if (condition)
              this.log.warn(
                { job: name, condition, cause: (err as Error).message },
                'job failed: the database cannot serve it now',
              );
            else this.log.error({ err, job: name }, 'job failed');
          } finally {
            busy = false;
          }
        })();
        this.running.add(run);
        await run;
        this.running.delete(run);
      };
      const timer = setInterval(tick, own ?? intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Stops scheduling and waits for the runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await Promise.allSettled([...this.running]);
  }
}
