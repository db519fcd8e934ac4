import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { NotFoundError } from '../../platform/errors.js';
import { OrderNotOpenError } from './errors.js';
import { PIPELINE_BATCH_LIMIT } from './pipeline/index.js';
import type { RestingOrderFilter, TradingRepository } from './repository.js';
import type { RequestRouter } from './router.js';
import type { BookRequest } from './types.js';
import type { toOrderView } from './views.js';

/** What a cancel-all did in one market: how many of its orders it cancelled, and how many it could not and why. */
export interface MarketCancels {
  optionId: number;
  cancelledCount: number;
  refusedCount: number;
  error: unknown;
}

export interface CancelAllResult {
  cancelled: ReturnType<typeof toOrderView>[];
  markets: MarketCancels[];
}
/**
 * Orders ended by their owner or by time: cancels by id, cancel-all (the refresh loop of every market maker, and the
 * dead man's switch), a single cancel, and expiries. Each goes through its market's queue in the order pipeline
 * like an order, so a cancel is decided under the market's lock in its turn.
 */
export class OrderCancels {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly route: RequestRouter,
  ) {}

  /**
   * Cancels a user's orders by id, each with its own answer: the cancelled order, or why not (404 for an order that
   * is not theirs or does not exist, 409 ORDER_NOT_OPEN for one no longer open).
   */
  async cancelOrders(
    userId: number,
    orderIds: number[],
  ): Promise<({ result: unknown } | { error: unknown })[]> {
    const found = new Map(
      (await this.trading.ordersOfUser(this.db, userId, orderIds)).map((row) => [row.id, row]),
    );
    return this.route.all(
      orderIds.map((orderId) => {
        const order = found.get(orderId);
        if (!order) return { error: new NotFoundError('Order') };
        const cancel: BookRequest = { type: 'cancel', userId, optionId: order.option_id, orderId };
        return { optionId: order.option_id, request: cancel };
      }),
    );
  }

  /**
   * Cancels every resting order of a user that the filter takes (all of them with none), through the pipeline like
   * single cancels; answers the orders it cancelled and what became of each market: its orders cancelled, or
   * refused with the error (a market busy or the database failing refuses its orders and not the others'). An order
   * that ended meanwhile (filled, cancelled elsewhere) is simply not among them.
   */
  async cancelAll(
    userId: number,
    filter: RestingOrderFilter,
    reason?: 'heartbeat_lapsed',
  ): Promise<CancelAllResult> {
    const resting = await this.trading.restingOrdersOfUser(this.db, userId, filter);
    const cancelled: ReturnType<typeof toOrderView>[] = [];
    const markets = new Map<number, MarketCancels>();
    // In slices, so that a user with thousands of orders never fills a market's queue.
    for (let at = 0; at < resting.length; at += PIPELINE_BATCH_LIMIT) {
      const slice = resting.slice(at, at + PIPELINE_BATCH_LIMIT);
      const outcomes = await this.route.all(
        slice.map((order) => ({
          optionId: order.option_id,
          request: {
            type: 'cancel',
            userId,
            optionId: order.option_id,
            orderId: order.id,
            reason,
          } as BookRequest,
        })),
      );
      for (const [index, outcome] of outcomes.entries()) {
        const optionId = (slice[index] as { option_id: number }).option_id;
        const market = markets.get(optionId) ?? { optionId, cancelledCount: 0, refusedCount: 0, error: null };
        markets.set(optionId, market);
        if ('result' in outcome) {
          cancelled.push(outcome.result as ReturnType<typeof toOrderView>);
          market.cancelledCount += 1;
        } else if (!(outcome.error instanceof OrderNotOpenError)) {
          market.refusedCount += 1;
          market.error ??= outcome.error;
        }
      }
    }
    return { cancelled, markets: [...markets.values()] };
  }

  /** Cancels a user's open limit order and releases what it held. */
  async cancelOrder(userId: number, orderId: number): Promise<ReturnType<typeof toOrderView>> {
    const order = await this.trading.findOrder(this.db, orderId);
    if (!order || order.user_id !== userId) throw new NotFoundError('Order');
    const cancel: BookRequest = { type: 'cancel', userId, optionId: order.option_id, orderId };
    return (await this.route.toOption(order.option_id, cancel)) as ReturnType<typeof toOrderView>;
  }

  /** Expires orders past their time, in their options' next batches; any instance may run it. */
  async expireDueOrders(limit = 100): Promise<number> {
    const due = await this.trading.dueExpiries(this.db, limit);
    const expired = await Promise.all(
      due.map((order) =>
        this.route.toOption(order.option_id, {
          type: 'expire',
          optionId: order.option_id,
          orderId: order.id,
        }),
      ),
    );
    return expired.reduce((sum: number, count) => sum + (count as number), 0);
  }
}
