import type { FastifyRequest } from 'fastify';
import type { MarketAction, TradingStatus } from './status.js';

/** How a request names its option: by id, or by its event's slug (and label). */
interface OptionRef {
  optionId?: string | undefined;
  eventSlug?: string | undefined;
}
interface OrderBody extends OptionRef {
  postOnly?: boolean | undefined;
}

type Rule = (request: FastifyRequest, status: TradingStatus) => Promise<void>;

/** Checks one new order against the status of its option's market (an unknown option is left to its route). */
async function checkOrder(status: TradingStatus, body: OrderBody, postOnly: boolean): Promise<void> {
  const eventId = await status.eventOf(body);
  if (eventId !== undefined) await status.check(eventId, { kind: 'order', postOnly });
}

/**
 * The requests a market's trading status may refuse, by route: those that place orders, amend them or convert
 * shares. Cancels, heartbeats and every read are never refused, so a trader can always pull their orders.
 */
const RULES: Record<string, Rule> = {
  'POST /api/trades': (request, status) => checkOrder(status, request.body as OrderBody, false),
  'POST /api/limit-orders': (request, status) => {
    const body = request.body as OrderBody;
    return checkOrder(status, body, body.postOnly === true);
  },
  'POST /api/limit-orders/batch': async (request, status) => {
    for (const order of (request.body as { orders: OrderBody[] }).orders)
      await checkOrder(status, order, order.postOnly === true);
  },
  'POST /api/limit-orders/:id/amend': async (request, status) => {
    const body = request.body as { remainingQuantity?: number; limitPriceCents?: number };
    const order = request.user
      ? await status.orderOf(request.user.userId, Number((request.params as { id: string }).id))
      : undefined;
    if (!order) return;
    const left = order.quantity - order.filled_quantity;
    // Only a replacement can take liquidity: a new price, or more shares than are left.
    const replaces =
      body.limitPriceCents !== undefined ||
      (body.remainingQuantity !== undefined && body.remainingQuantity > left);
    const action: MarketAction = { kind: 'amend', mayTake: replaces && !order.post_only };
    await status.check(order.event_id, action);
  },
  'POST /api/events/:id/conversions': (request, status) =>
    status.check(Number((request.params as { id: string }).id), { kind: 'convert' }),
};

/**
 * A preHandler hook that holds the order routes to the trading status operators set (`TradingStatus`): in
 * maintenance nothing new is taken (503 MAINTENANCE), in post-only mode only orders that cannot take liquidity (409
 * POST_ONLY_MODE). Runs after the route has checked the caller and the body; costs nothing while every market trades.
 */
export function tradingStatusGuard(status: TradingStatus) {
  return async (request: FastifyRequest): Promise<void> => {
    const rule = RULES[`${request.method} ${request.routeOptions.url}`];
    if (!rule || (await status.allTrading())) return;
    await rule(request, status);
  };
}
