import { type Selectable, sql } from 'kysely';
import type { EventsTable, OptionsTable } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export type EventRow = Omit<Selectable<EventsTable>, 'search'>;
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
    if (filter.category) query = query.where('category', '=', filter.category);
    if (filter.featured !== undefined) query = query.where('featured', '=', filter.featured);
    if (filter.q) query = query.where(sql<boolean>`search @@ websearch_to_tsquery('english', ${filter.q})`);
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

  async setOptionResolution(
    db: Queryable,
    optionId: number,
    resolution: 'YES' | 'NO' | 'VOID',
  ): Promise<void> {
    await db.updateTable('options').set({ resolution }).where('id', '=', optionId).execute();
  }

  async countEvents(db: Queryable): Promise<number> {
    const row = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * The last traded YES price per option, bucketed so each option has at most `points` points; each point is
   * stamped with the time of the trade that set it, never earlier than the first trade.
   */
  async priceHistory(
    db: Queryable,
    optionIds: number[],
    since: Date | null,
    points: number,
  ): Promise<{ option_id: number; t: Date; price: number }[]> {
    if (optionIds.length === 0) return [];
    const bounds = await db
      .selectFrom('fills')
      .select([sql<Date | null>`min(created_at)`.as('first'), sql<Date | null>`max(created_at)`.as('last')])
      .where('option_id', 'in', optionIds)
      .$if(since !== null, (q) => q.where('created_at', '>=', since as Date))
      .executeTakeFirst();
    if (!bounds?.first || !bounds.last) return [];
    const from = since ?? bounds.first;
    const spanSeconds = Math.max(1, (bounds.last.getTime() - from.getTime()) / 1000);
    const bucket = Math.max(1, Math.ceil(spanSeconds / points));
    const rows = await sql<{ option_id: number; t: Date; price: number }>`
      SELECT option_id, max(created_at) AS t, (array_agg(yes_price ORDER BY id DESC))[1] AS price
      FROM fills
      WHERE option_id = ANY(${sql.val(optionIds)}::bigint[]) AND created_at >= ${from}
      GROUP BY option_id, floor(extract(epoch FROM created_at) / ${bucket})
      ORDER BY option_id, t`.execute(db);
    return rows.rows;
  }

  /** Announces a change to these events; PostgreSQL delivers it to every listener when the transaction commits. */
  async notifyCatalogueChanged(db: Queryable, eventIds: number[]): Promise<void> {
    await sql`SELECT pg_notify(${CATALOGUE_CHANNEL}, ${JSON.stringify({ eventIds })})`.execute(db);
  }

  /**
   * Traders ranked by one measure (defined in the API docs), suspended accounts left out. Profit ranks everyone
   * with a realized result, losses included, so the board is never empty while someone has sold or been paid.
   */
  async leaderboard(db: Queryable, measure: 'profit' | 'volume' | 'predictions', limit: number) {
    const query =
      measure === 'profit'
        ? sql<{ user_id: number; username: string; value: number }>`
            SELECT p.user_id, u.username, sum(p.realized_pnl_cents)::bigint AS value
            FROM positions p JOIN users u ON u.id = p.user_id
            WHERE u.suspended_at IS NULL
            GROUP BY p.user_id, u.username HAVING bool_or(p.realized_pnl_cents <> 0)
            ORDER BY value DESC, p.user_id LIMIT ${limit}`
        : measure === 'volume'
          ? sql<{ user_id: number; username: string; value: number }>`
            SELECT t.user_id, u.username, sum(t.quantity * t.price_cents)::bigint AS value
            FROM trades t JOIN users u ON u.id = t.user_id
            WHERE u.suspended_at IS NULL
            GROUP BY t.user_id, u.username
            ORDER BY value DESC, t.user_id LIMIT ${limit}`
          : sql<{ user_id: number; username: string; value: number }>`
            SELECT s.user_id, u.username, count(*)::bigint AS value
            FROM position_settlements s JOIN users u ON u.id = s.user_id
            WHERE s.outcome = s.side AND s.quantity > 0 AND u.suspended_at IS NULL
            GROUP BY s.user_id, u.username
            ORDER BY value DESC, s.user_id LIMIT ${limit}`;
    return (await query.execute(db)).rows;
  }

  /** Resolved events whose dispute window has passed with no dispute pending, claimed for settlement. */
  claimSettleable(db: Queryable, windowHours: number, limit: number) {
    return db
      .selectFrom('events as e')
      .select(['e.id'])
      .where('e.status', '=', 'resolved')
      .where('e.resolved_at', '<=', new Date(Date.now() - windowHours * 3_600_000))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('disputes as d')
              .select('d.id')
              .whereRef('d.event_id', '=', 'e.id')
              .where('d.status', '=', 'pending'),
          ),
        ),
      )
      .orderBy('e.resolved_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  claimDueClosures(db: Queryable, limit: number) {
    return db
      .selectFrom('events')
      .select('id')
      .where('status', '=', 'open')
      .where('closes_at', '<=', new Date())
      .orderBy('closes_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  /** Everyone holding shares in an event's options. */
  holdersOf(db: Queryable, eventId: number) {
    return db
      .selectFrom('positions as p')
      .innerJoin('options as o', 'o.id', 'p.option_id')
      .select(['p.user_id', 'p.option_id', 'p.side', 'p.quantity'])
      .where('o.event_id', '=', eventId)
      .where('p.quantity', '>', 0)
      .execute();
  }
}
