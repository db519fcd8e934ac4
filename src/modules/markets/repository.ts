import { type Selectable, sql } from 'kysely';
import type { EventsTable, OptionsTable } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import { searchMatches } from './search.js';

export type EventRow = Omit<Selectable<EventsTable>, 'search' | 'search_words'>;
export type OptionRow = Selectable<OptionsTable>;

/** NOTIFY channel of changes to the catalogue (events, options, lifecycle); the payload is `{"eventIds": [...]}`. */
export const CATALOGUE_CHANNEL = 'pmx_markets';

const EVENT_COLUMNS = [
  'id',
  'slug',
  'title',
  'description',
  'category',
  'featured',
  'status',
  'resolution_source',
  'exclusive',
  'liquidity_b',
  'closes_at',
  'opened_at',
  'closed_at',
  'resolved_at',
  'settled_at',
  'created_at',
  'updated_at',
] as const;

export interface EventFilter {
  ids?: number[] | undefined;
  category?: string | undefined;
  featured?: boolean | undefined;
  q?: string | undefined;
  statuses: string[];
  beforeId: number | null;
  limit: number;
}

export interface NewEvent {
  slug: string;
  title: string;
  description: string;
  category: string;
  featured: boolean;
  resolutionSource: string | null;
  closesAt: Date;
  exclusive: boolean;
  /** An exclusive event's house maker (0 = none). */
  liquidityCents: number;
}

export interface NewOption {
  label: string;
  sortOrder: number;
  liquidityCents: number;
  ammOffset: number;
}

export interface EventPatch {
  title?: string;
  description?: string;
  category?: string;
  featured?: boolean;
  resolutionSource?: string | null;
  closesAt?: Date;
  exclusive?: boolean;
  liquidityCents?: number;
}

export class MarketsRepository {
  listEvents(db: Queryable, filter: EventFilter): Promise<EventRow[]> {
    let query = db
      .selectFrom('events')
      .select(EVENT_COLUMNS)
      .where('status', 'in', filter.statuses as EventRow['status'][])
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.ids !== undefined) query = query.where('id', 'in', filter.ids);
    if (filter.category) query = query.where('category', '=', filter.category);
    if (filter.featured !== undefined) query = query.where('featured', '=', filter.featured);
    if (filter.q) query = query.where(searchMatches(filter.q));
    if (filter.beforeId !== null) query = query.where('id', '<', filter.beforeId);
    return query.execute();
  }

  findEventBySlug(db: Queryable, slug: string): Promise<EventRow | undefined> {
    return db.selectFrom('events').select(EVENT_COLUMNS).where('slug', '=', slug).executeTakeFirst();
  }

  findEventById(db: Queryable, id: number): Promise<EventRow | undefined> {
    return db.selectFrom('events').select(EVENT_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  lockEvent(db: Queryable, id: number): Promise<EventRow | undefined> {
    return db.selectFrom('events').select(EVENT_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  async slugTaken(db: Queryable, slug: string): Promise<boolean> {
    return (
      (await db.selectFrom('events').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined
    );
  }

  optionsOf(db: Queryable, eventIds: number[]): Promise<OptionRow[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('options')
      .selectAll()
      .where('event_id', 'in', eventIds)
      .orderBy('event_id')
      .orderBy('sort_order')
      .orderBy('id')
      .execute();
  }

  /** The events (of these statuses) holding any of these options. */
  eventsOfOptions(db: Queryable, optionIds: number[], statuses: string[]): Promise<EventRow[]> {
    if (optionIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('events')
      .select(EVENT_COLUMNS)
      .where('status', 'in', statuses as EventRow['status'][])
      .where('id', 'in', (eb) => eb.selectFrom('options').select('event_id').where('id', 'in', optionIds))
      .orderBy('id', 'desc')
      .execute();
  }

  /** Locks every option of an event, in id order, so lifecycle changes serialise with trading. */
  lockOptionsOf(db: Queryable, eventId: number): Promise<OptionRow[]> {
    return db
      .selectFrom('options')
      .selectAll()
      .where('event_id', '=', eventId)
      .orderBy('id')
      .forUpdate()
      .execute();
  }

  findOption(
    db: Queryable,
    optionId: number,
  ): Promise<(OptionRow & { slug: string; event_title: string }) | undefined> {
    return db
      .selectFrom('options as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .selectAll('o')
      .select(['e.slug', 'e.title as event_title'])
      .where('o.id', '=', optionId)
      .executeTakeFirst();
  }

  async findOptionId(db: Queryable, eventSlug: string, label: string): Promise<number | undefined> {
    const row = await db
      .selectFrom('options as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .select('o.id')
      .where('e.slug', '=', eventSlug)
      .where(sql<boolean>`lower(o.label) = lower(${label})`)
      .executeTakeFirst();
    return row?.id;
  }

  insertEvent(db: Queryable, event: NewEvent): Promise<EventRow> {
    return db
      .insertInto('events')
      .values({
        slug: event.slug,
        title: event.title,
        description: event.description,
        category: event.category,
        featured: event.featured,
        resolution_source: event.resolutionSource,
        closes_at: event.closesAt,
        exclusive: event.exclusive,
        liquidity_b: event.liquidityCents,
      })
      .returning(EVENT_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  insertOption(db: Queryable, eventId: number, option: NewOption): Promise<OptionRow> {
    return db
      .insertInto('options')
      .values({
        event_id: eventId,
        label: option.label,
        sort_order: option.sortOrder,
        liquidity_b: option.liquidityCents,
        amm_offset: option.ammOffset,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async updateOption(
    db: Queryable,
    optionId: number,
    patch: { label: string; liquidityCents: number; ammOffset: number },
  ): Promise<void> {
    await db
      .updateTable('options')
      .set({ label: patch.label, liquidity_b: patch.liquidityCents, amm_offset: patch.ammOffset })
      .where('id', '=', optionId)
      .execute();
  }

  /** Sets the house maker of options (a draft's): liquidity and starting offset, option by option. */
  async setOptionMakers(
    db: Queryable,
    makers: { optionId: number; liquidityCents: number; ammOffset: number }[],
  ): Promise<void> {
    for (const maker of makers) {
      await db
        .updateTable('options')
        .set({ liquidity_b: maker.liquidityCents, amm_offset: maker.ammOffset })
        .where('id', '=', maker.optionId)
        .execute();
    }
  }

  updateEvent(db: Queryable, id: number, patch: EventPatch): Promise<EventRow | undefined> {
    return db
      .updateTable('events')
      .set({
        ...(patch.title !== undefined ? { title: patch.title } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.category !== undefined ? { category: patch.category } : {}),
        ...(patch.featured !== undefined ? { featured: patch.featured } : {}),
        ...(patch.resolutionSource !== undefined ? { resolution_source: patch.resolutionSource } : {}),
        ...(patch.closesAt !== undefined ? { closes_at: patch.closesAt } : {}),
        ...(patch.exclusive !== undefined ? { exclusive: patch.exclusive } : {}),
        ...(patch.liquidityCents !== undefined ? { liquidity_b: patch.liquidityCents } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returning(EVENT_COLUMNS)
      .executeTakeFirst();
  }

  async setEventStatus(
    db: Queryable,
    id: number,
    status: EventRow['status'],
    stamp: 'opened_at' | 'closed_at' | 'resolved_at' | 'settled_at',
  ): Promise<void> {
    await db
      .updateTable('events')
      .set({ status, [stamp]: new Date(), updated_at: new Date() })
      .where('id', '=', id)
      .execute();
  }

  async countEvents(db: Queryable): Promise<number> {
    const row = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Announces a change to these events; PostgreSQL delivers it to every listener when the transaction commits. */
  async notifyCatalogueChanged(db: Queryable, eventIds: number[]): Promise<void> {
    await sql`SELECT pg_notify(${CATALOGUE_CHANNEL}, ${JSON.stringify({ eventIds })})`.execute(db);
  }
}
