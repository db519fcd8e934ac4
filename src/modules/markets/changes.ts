import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import type { MarketsRepository } from './repository.js';

/** Told in this process, after commit, of every change to the public catalogue, with the events it changed. */
export type CatalogueListener = (eventIds: number[]) => void;

/**
 * Changes to the catalogue (events, options, lifecycle, outcomes), each in one transaction. The events a change
 * marks as changed are announced with NOTIFY inside it, so every instance hears of it exactly when it commits, and
 * to this process's listeners once it has committed, before the caller gets its answer.
 */
export class CatalogueChanges {
  private readonly listeners: CatalogueListener[] = [];

  constructor(
    private readonly db: Kysely<DB>,
    private readonly markets: MarketsRepository,
  ) {}

  /** Listens to committed changes of events and options made here. */
  on(listener: CatalogueListener): void {
    this.listeners.push(listener);
  }

  async run<T>(work: (trx: Tx, changed: (eventId: number) => void) => Promise<T>): Promise<T> {
    const eventIds = new Set<number>();
    const result = await this.db.transaction().execute(async (trx) => {
      const value = await work(trx, (eventId) => eventIds.add(eventId));
      if (eventIds.size > 0) await this.markets.notifyCatalogueChanged(trx, [...eventIds]);
      return value;
    });
    if (eventIds.size > 0) for (const listener of this.listeners) listener([...eventIds]);
    return result;
  }
}
