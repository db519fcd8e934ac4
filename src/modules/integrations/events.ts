import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { NotFoundError } from '../../platform/errors.js';
import type { EventRef, EventRefsRepository } from './repository.js';

/** Finds the event a request names, or answers 404. */
export class EventLookup {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly events: EventRefsRepository,
  ) {}

  async publicBySlug(slug: string): Promise<EventRef> {
    const event = await this.events.publicBySlug(this.db, slug);
    if (!event) throw new NotFoundError('Event');
    return event;
  }

  async byId(id: number): Promise<EventRef> {
    const event = await this.events.byId(this.db, id);
    if (!event) throw new NotFoundError('Event');
    return event;
  }
}
