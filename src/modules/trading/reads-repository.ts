import { sql } from 'kysely';
import type { Side } from '../../exchange/money.js';
import type { BookSide } from '../../exchange/order-book.js';
import type { Outcome } from '../../exchange/positions.js';
import type { EventStatus, SideText } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import { type HouseMakerColumns, OPEN_STATUSES } from './repository.js';
import { makerInventoriesOf } from './rows.js';

/**
 * For an option that never traded, the YES price its event's last conversion booked it at, null otherwise: a mark
 * of the valuation rule (src/exchange/valuation.ts). `option` is the alias of the options row.
 */
export function conversionYesPriceOf(option: string) {
  const column = (name: string) => sql.ref(`${option}.${name}`);
  return sql<number | null>`CASE WHEN ${column('last_yes_price')} IS NULL THEN (
    SELECT CASE leg->>'side' WHEN 'YES' THEN (leg->>'priceCents')::int ELSE 100 - (leg->>'priceCents')::int END
    FROM conversions c CROSS JOIN LATERAL jsonb_array_elements(c.legs) AS leg
    WHERE c.event_id = ${column('event_id')} AND (leg->>'optionId')::bigint = ${column('id')}
    ORDER BY c.id DESC LIMIT 1) END`;
}

/** Which of a user's positions to read: at most `limit` (null: all), after the position of `after`. */
export interface PositionsPage {
  limit: number | null;
  after: { optionId: number; side: Side } | null;
}

/** Which of a user's orders to list: open or finished limit orders, optionally of one event. */
export interface OrderFilter {
  open: boolean;
  eventSlug?: string;
}

/** Which of a user's trades to list: in settled events, in the others, or all (`null`); optionally of one event. */
export interface TradeFilter {
  settled: boolean | null;
  eventSlug?: string;
}

/** The reads of trading: a user's orders, trades, conversions and positions, an option's book, a dispute's holder check. */
export class TradingReadsRepository {
  /**
   * A page of a user's open or finished limit orders, newest first. The page's ids are found first, on the partial
   * index of open orders or of finished limit orders by user (an index-only scan: a maker's tens of thousands of
   * resting orders are never stepped over to reach the history), then read whole with their event.
   */
  listOrders(db: Queryable, userId: number, filter: OrderFilter, beforeId: number | null, limit: number) {
    const { open, eventSlug } = filter;
    let page = db
      .selectFrom('orders')
      .select('id')
      .where('user_id', '=', userId)
      // Literals, not parameters: only then does a prepared statement's plan see the partial indexes' predicates.
      .where(
        sql<boolean>`status ${sql.raw(open ? 'IN' : 'NOT IN')} (${sql.join(OPEN_STATUSES.map(sql.lit))})`,
      )
      .orderBy('id', 'desc')
      .limit(limit + 1);
    if (!open) page = page.where('kind', '=', sql.lit('limit'));
    if (beforeId !== null) page = page.where('id', '<', beforeId);
    if (eventSlug !== undefined)
      page = page.where('option_id', 'in', (eb) =>
        eb
          .selectFrom('options as op')
          .innerJoin('events as e', 'e.id', 'op.event_id')
          .select('op.id')
          .where('e.slug', '=', eventSlug),
      );
    return db
      .selectFrom('orders as o')
      .innerJoin('options as op', 'op.id', 'o.option_id')
      .innerJoin('events as e', 'e.id', 'op.event_id')
      .selectAll('o')
      .select(['e.slug as event_slug', 'e.title as event_title', 'op.label as option_label'])
      .where('o.id', 'in', page)
      .orderBy('o.id', 'desc')
      .execute();
  }

  listTrades(db: Queryable, userId: number, filter: TradeFilter, beforeId: number | null, limit: number) {
    const { settled, eventSlug } = filter;
    let query = db
      .selectFrom('trades as t')
      .innerJoin('options as op', 'op.id', 't.option_id')
      .innerJoin('events as e', 'e.id', 't.event_id')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .selectAll('t')
      .select([
        'e.slug as event_slug',
        'e.title as event_title',
        'op.label as option_label',
        'o.kind as order_kind',
      ])
      .where('t.user_id', '=', userId)
      .orderBy('t.id', 'desc')
      .limit(limit + 1);
    if (settled !== null) query = query.where('e.status', settled ? '=' : '<>', 'settled');
    if (eventSlug !== undefined) query = query.where('e.slug', '=', eventSlug);
    if (beforeId !== null) query = query.where('t.id', '<', beforeId);
    return query.execute();
  }

  /**
   * Open positions (shares held) of a user, with what is needed to value them, in the order of their option and
   * side: those after `page.after`, all of them or `page.limit` + 1 (keyset on the index of a user's positions).
   */
  positionsOf(db: Queryable, userId: number, page: PositionsPage = { limit: null, after: null }) {
    let query = db
      .selectFrom('positions as p')
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('options as op')
            .innerJoin('events as e', 'e.id', 'op.event_id')
            .select([
              'e.slug as event_slug',
              'e.title as event_title',
              'e.status as event_status',
              'op.label as option_label',
              'op.last_yes_price',
              'op.resolution',
              'op.yes_payout_cents',
              conversionYesPriceOf('op').as('conversion_yes_price'),
            ])
            .whereRef('op.id', '=', 'p.option_id')
            // Each holding's option by its key (see holdingGroups).
            .limit(1)
            .as('o'),
        (join) => join.onTrue(),
      )
      .selectAll(['p', 'o'])
      .where('p.user_id', '=', userId)
      .where('p.quantity', '>', 0)
      .orderBy('p.option_id')
      .orderBy('p.side');
    if (page.after) {
      const { optionId, side } = page.after;
      query = query.where(sql<boolean>`(p.option_id, p.side) > (${optionId}, ${side})`);
    }
    if (page.limit !== null) query = query.limit(page.limit + 1);
    return query.execute();
  }

  /**
   * What values all of a user's open positions, summed over the positions that share a mark's inputs (side, last
   * price, resolution, payout, conversion price): a holding's value is linear in its shares, so each group is
   * valued once, by the same rule, and the sums equal those of the positions one by one.
   */
  async holdingGroups(db: Queryable, userId: number) {
    const { rows } = await sql<{
      side: SideText;
      last_yes_price: number | null;
      resolution: Outcome | null;
      yes_payout_cents: number | null;
      conversion_yes_price: number | null;
      quantity: string;
      cost_cents: string;
    }>`
      SELECT side, last_yes_price, resolution, yes_payout_cents, conversion_yes_price,
        sum(quantity) AS quantity, sum(cost_cents) AS cost_cents
      FROM (
        SELECT p.side, p.quantity, p.cost_cents, op.last_yes_price, op.resolution, op.yes_payout_cents,
          ${conversionYesPriceOf('op')} AS conversion_yes_price
        FROM positions p
        -- Each holding's option by its key: LIMIT 1 stops the planner from making this a join, which for a trader
        -- with a thousand positions read and hashed every option of the catalogue (19 ms of 20 with 50,000 options).
        CROSS JOIN LATERAL (SELECT * FROM options o WHERE o.id = p.option_id LIMIT 1) op
        WHERE p.user_id = ${userId} AND p.quantity > 0
      ) held
      GROUP BY 1, 2, 3, 4, 5`.execute(db);
    return rows.map((row) => ({
      ...row,
      quantity: Number(row.quantity),
      cost_cents: Number(row.cost_cents),
    }));
  }

  async realizedPnl(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('positions')
      .select(sql<number>`coalesce(sum(realized_pnl_cents), 0)::bigint`.as('total'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async openOrderCount(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('status', 'in', OPEN_STATUSES)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A user's conversions, newest first, with their event's slug and option labels. */
  listConversions(
    db: Queryable,
    userId: number,
    eventSlug: string | undefined,
    beforeId: number | null,
    limit: number,
  ) {
    let query = db
      .selectFrom('conversions as c')
      .innerJoin('events as e', 'e.id', 'c.event_id')
      .selectAll('c')
      .select([
        'e.slug as event_slug',
        sql<
          Record<string, string>
        >`(SELECT json_object_agg(o.id, o.label) FROM options o WHERE o.event_id = c.event_id)`.as('labels'),
      ])
      .where('c.user_id', '=', userId)
      .orderBy('c.id', 'desc')
      .limit(limit + 1);
    if (eventSlug !== undefined) query = query.where('e.slug', '=', eventSlug);
    if (beforeId !== null) query = query.where('c.id', '<', beforeId);
    return query.execute();
  }

  /**
   * An option's book as it stands, in one statement (so one consistent snapshot): the option, its event's state,
   * its resting orders aggregated per level, and for an exclusive event the inventory of the event's house maker in
   * every option (its quotes in this option depend on all of them).
   */
  async bookAt(db: Queryable, optionId: number) {
    const { rows } = await sql<
      HouseMakerColumns & {
        id: number;
        event_id: number;
        label: string;
        book_version: number;
        last_yes_price: number | null;
        event_slug: string;
        event_status: EventStatus;
        exclusive: boolean;
        event_liquidity_b: number;
        levels: [BookSide, number, number, number][] | null;
        makers: [number, number, number, number][] | null;
      }
    >`
      SELECT o.id, o.event_id, o.label, o.book_version, o.last_yes_price, o.liquidity_b, o.amm_offset,
        o.amm_yes_shares, o.amm_no_shares, e.slug AS event_slug, e.status AS event_status, e.exclusive,
        e.liquidity_b AS event_liquidity_b,
        (SELECT json_agg(json_build_array(l.book_side, l.book_price, l.quantity, l.orders)) FROM (
          SELECT book_side, book_price, sum(quantity - filled_quantity) AS quantity, count(*) AS orders
          FROM orders WHERE option_id = o.id AND status IN ('open', 'partially_filled')
          GROUP BY book_side, book_price) l) AS levels,
        CASE WHEN e.exclusive THEN (
          SELECT json_agg(json_build_array(s.id, s.amm_offset, s.amm_yes_shares, s.amm_no_shares) ORDER BY s.id)
          FROM options s WHERE s.event_id = e.id) END AS makers
      FROM options o JOIN events e ON e.id = o.event_id
      WHERE o.id = ${optionId}`.execute(db);
    const row = rows[0];
    if (!row) return undefined;
    const { levels, makers, ...option } = row;
    return {
      option: { ...option, book_version: Number(option.book_version) },
      levels: (levels ?? []).map(([side, priceCents, quantity, orders]) => ({
        side,
        priceCents,
        quantity: Number(quantity),
        orders: Number(orders),
      })),
      makers: makerInventoriesOf(makers),
    };
  }

  async hasHeldPosition(db: Queryable, userId: number, eventId: number): Promise<boolean> {
    const row = await db
      .selectFrom('positions as p')
      .innerJoin('options as o', 'o.id', 'p.option_id')
      .select('p.id')
      .where('p.user_id', '=', userId)
      .where('o.event_id', '=', eventId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
