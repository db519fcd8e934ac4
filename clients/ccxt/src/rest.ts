import { randomUUID } from 'node:crypto';
import {
  ArgumentsRequired,
  type Balances,
  type Dict,
  type Int,
  InvalidOrder,
  type Num,
  type PredictionOrder,
  type PredictionOrderRequest,
  type PredictionPosition,
  type PredictionSettlement,
  type PredictionTrade,
  type PredictionTradingFee,
  type Status,
  type Str,
  type Strings,
} from 'ccxt';
import type { OutcomeLabel } from './base.js';
import { PmxMarketData } from './market-data.js';

/**
 * Orders and the account, every method the API serves natively: one request each (a page walk for lists), no
 * emulation. Cancel-all and amend are single requests here, unlike venues that fake them with one request per order.
 */
export class PmxRest extends PmxMarketData {
  // -- orders -----------------------------------------------------------------------------------------------------

  /**
   * `limit`: a limit order (params: `timeInForce` GTC, GTD, IOC, FOK or PO, `postOnly`, `expiresAt`,
   * `clientOrderId`). `market`: immediate-or-cancel at no worse than `price` (default any). Each is sent with an
   * Idempotency-Key (`params.idempotencyKey`, or a fresh one), so a retry never places it twice.
   */
  override async createOrder(
    outcome: string,
    type: string,
    side: string,
    amount: number,
    price: Num = undefined,
    params: Dict = {},
  ): Promise<PredictionOrder> {
    const { optionId, label } = await this.resolveOutcome(outcome);
    const headers = { 'Idempotency-Key': this.safeString(params, 'idempotencyKey', randomUUID()) };
    const rest = this.omit(params, ['idempotencyKey']);
    if (type === 'market') {
      const body = this.marketBody(optionId, label, side, amount, price, rest);
      return this.parsePredictionOrder(await this.request('trades', 'private', 'POST', body, headers));
    }
    const body = this.limitBody(optionId, label, side, amount, price, rest);
    return this.parsePredictionOrder(await this.request('limit-orders', 'private', 'POST', body, headers));
  }

  /**
   * Up to MAX_BATCH_ORDERS orders in one request, each decided as if alone. A market order rides the batch as an
   * immediate-or-cancel limit order at its price (default any). A refused order comes back `rejected`, its error
   * in `info`; the others are placed.
   */
  override async createOrders(
    orders: PredictionOrderRequest[],
    params: Dict = {},
  ): Promise<PredictionOrder[]> {
    const bodies = [];
    for (const order of orders) {
      const { optionId, label } = await this.resolveOutcome(order.outcome as string);
      const extra: Dict = order.params ?? {};
      const market = order.type === 'market';
      const price = order.price ?? (market ? (order.side === 'buy' ? 0.99 : 0.01) : undefined);
      bodies.push(
        this.limitBody(
          optionId,
          label,
          order.side as string,
          order.amount as number,
          price,
          market ? { ...extra, timeInForce: 'IOC' } : extra,
        ),
      );
    }
    const headers = { 'Idempotency-Key': this.safeString(params, 'idempotencyKey', randomUUID()) };
    const answer = await this.request('limit-orders/batch', 'private', 'POST', { orders: bodies }, headers);
    return this.safeList(answer, 'data', []).map((part: Dict, index: number) => {
      const placed = this.safeDict(part, 'order');
      if (placed) return this.parsePredictionOrder(placed);
      return this.safePredictionOrder({ status: 'rejected', outcome: orders[index]?.outcome, info: part });
    });
  }

  /**
   * Our amend: `amount` is the shares left to fill, `price` the new limit. Fewer shares at the same price keep the
   * order (same id, its place in the queue); a new price or more shares replace it (a new id, `info.replacesOrderId`).
   */
  async editOrder(
    id: string,
    _outcome: string,
    _type: string,
    _side: string,
    amount: Num = undefined,
    price: Num = undefined,
    params: Dict = {},
  ): Promise<PredictionOrder> {
    const body = this.extend(
      {
        id,
        remainingQuantity: amount ?? undefined,
        limitPriceCents: price === undefined ? undefined : this.toCents(price),
      },
      this.omit(params, ['idempotencyKey']),
    );
    const headers = { 'Idempotency-Key': this.safeString(params, 'idempotencyKey', randomUUID()) };
    const result = await this.request('limit-orders/{id}/amend', 'private', 'POST', body, headers);
    const order = this.parsePredictionOrder(this.safeDict(result, 'order', {}));
    order.info = { ...order.info, priorityKept: this.safeBool(result, 'priorityKept') };
    return order;
  }

  override async cancelOrder(id: string, _outcome: Str = undefined, params = {}): Promise<PredictionOrder> {
    return this.parsePredictionOrder(
      await this.request('limit-orders/{id}', 'private', 'DELETE', this.extend({ id }, params)),
    );
  }

  /** One request for all of them; an order that could not be cancelled comes back with its error in `info`. */
  override async cancelOrders(
    ids: string[],
    _outcome: Str = undefined,
    params = {},
  ): Promise<PredictionOrder[]> {
    const answer = await this.request(
      'limit-orders/cancel',
      'private',
      'POST',
      this.extend({ orderIds: ids }, params),
    );
    return this.safeList(answer, 'data', []).map((part: Dict) => {
      const order = this.safeDict(part, 'order');
      return order
        ? this.parsePredictionOrder(order)
        : this.safePredictionOrder({ id: part.orderId, info: part });
    });
  }

  /** One request: every resting order, or those of one outcome (its option and side). */
  async cancelAllOrders(outcome: Str = undefined, params = {}): Promise<PredictionOrder[]> {
    const wanted = outcome === undefined ? undefined : await this.resolveOutcome(outcome);
    const body = wanted ? { optionId: wanted.optionId, side: wanted.label } : {};
    const answer = await this.request(
      'limit-orders/cancel-all',
      'private',
      'POST',
      this.extend(body, params),
    );
    return this.safeList(answer, 'data', []).map((order: Dict) => this.parsePredictionOrder(order));
  }

  async fetchOrder(id: string, _outcome: Str = undefined, params = {}): Promise<PredictionOrder> {
    return this.parsePredictionOrder(
      await this.request('orders/{id}', 'private', 'GET', this.extend({ id }, params)),
    );
  }

  override async fetchOpenOrders(
    outcome: Str = undefined,
    since: Int = undefined,
    limit: Int = undefined,
    params = {},
  ) {
    return this.listOrders('open', outcome, since, limit, params);
  }

  override async fetchClosedOrders(
    outcome: Str = undefined,
    since: Int = undefined,
    limit: Int = undefined,
    params = {},
  ) {
    return this.listOrders('history', outcome, since, limit, params);
  }

  override async fetchOrders(
    outcome: Str = undefined,
    since: Int = undefined,
    limit: Int = undefined,
    params = {},
  ) {
    const open = await this.listOrders('open', outcome, since, undefined, params);
    const closed = await this.listOrders('history', outcome, since, undefined, params);
    return this.filterBySinceLimit(
      this.sortBy([...open, ...closed], 'timestamp'),
      since,
      limit,
    ) as PredictionOrder[];
  }

  override async fetchOrderTrades(
    id: string,
    _outcome: Str = undefined,
    since: Int = undefined,
    limit: Int = undefined,
    params = {},
  ) {
    const fills = await this.pages('me/fills', 'private', this.extend({ orderId: id }, params));
    return this.filterBySinceLimit(
      this.sortBy(
        fills.map((fill) => this.fillOf(fill)),
        'timestamp',
      ),
      since,
      limit,
    ) as PredictionTrade[];
  }

  override async fetchMyTrades(
    outcome: Str = undefined,
    since: Int = undefined,
    limit: Int = undefined,
    params = {},
  ) {
    const wanted = outcome === undefined ? undefined : await this.resolveOutcome(outcome);
    const request = wanted ? { optionId: wanted.optionId } : {};
    const fills = await this.pages('me/fills', 'private', this.extend(request, params));
    const trades = fills
      .filter((fill) => !wanted || this.safeString(fill, 'side') === wanted.label)
      .map((fill) => this.fillOf(fill));
    return this.filterBySinceLimit(this.sortBy(trades, 'timestamp'), since, limit) as PredictionTrade[];
  }

  /** Your limit orders, `open` (partly filled included) or `history`, of one outcome or all. */
  async listOrders(status: 'open' | 'history', outcome: Str, since: Int, limit: Int, params: Dict) {
    const wanted = outcome === undefined ? undefined : await this.resolveOutcome(outcome);
    const rows = await this.pages('limit-orders', 'private', this.extend({ status }, params));
    const orders = rows
      .filter((row) => !wanted || (row.optionId === wanted.optionId && row.side === wanted.label))
      .map((row) => this.parsePredictionOrder(row));
    return this.filterBySinceLimit(this.sortBy(orders, 'timestamp'), since, limit) as PredictionOrder[];
  }

  // -- account ----------------------------------------------------------------------------------------------------

  override async fetchPositions(outcomes: Strings = undefined, params = {}): Promise<PredictionPosition[]> {
    const perPage = this.safeInteger(this.options, 'positionsPerPage', 200);
    const rows = await this.pages('positions', 'private', params, Number.POSITIVE_INFINITY, perPage);
    const positions = rows.map((p: Dict) => this.parsePredictionPosition(p));
    if (outcomes === undefined) return positions;
    const ids = new Set(
      (await Promise.all(outcomes.map((o) => this.resolveOutcome(o)))).map((o) =>
        this.outcomeIdOf(o.optionId, o.label),
      ),
    );
    return positions.filter((position: PredictionPosition) => ids.has(position.outcomeId as string));
  }

  override async fetchPosition(outcome: string, params = {}): Promise<PredictionPosition> {
    const [position] = await this.fetchPositions([outcome], params);
    if (position) return position;
    const { optionId, label, handle } = await this.resolveOutcome(outcome);
    return this.safePredictionPosition({
      outcome: handle,
      outcomeId: this.outcomeIdOf(optionId, label),
      label,
      contracts: 0,
      side: 'long',
    });
  }

  /** Cash is free; what open orders hold is used. */
  override async fetchBalance(params = {}): Promise<Balances> {
    // The summary covers every position whatever the page: one position is enough to get it.
    const portfolio = await this.request('positions', 'private', 'GET', this.extend({ limit: 1 }, params));
    const summary = this.safeDict(portfolio, 'summary', {});
    const cash = this.safeInteger(summary, 'cashCents', 0);
    const reserved = this.safeInteger(summary, 'reservedCents', 0);
    return this.safeBalance({
      info: summary,
      USD: { free: cash / 100, used: reserved / 100, total: (cash + reserved) / 100 },
    });
  }

  override async fetchSettlements(
    outcome: Str = undefined,
    since: Int = undefined,
    limit: Int = undefined,
    params = {},
  ) {
    const wanted = outcome === undefined ? undefined : await this.resolveOutcome(outcome);
    const settlements = (await this.pages('me/settlements', 'private', params))
      .map((settlement) => this.parseSettlement(settlement))
      .filter((s) => !wanted || s.outcomeId === this.outcomeIdOf(wanted.optionId, wanted.label));
    return this.filterBySinceLimit(
      this.sortBy(settlements, 'timestamp'),
      since,
      limit,
    ) as PredictionSettlement[];
  }

  override async fetchTradingFee(outcome: string, params = {}): Promise<PredictionTradingFee> {
    const { optionId, label, handle } = await this.resolveOutcome(outcome);
    const status = await this.request('status', 'public', 'GET', params);
    return {
      info: status,
      maker: this.safeInteger(status, 'makerFeeBps', 0) / 10_000,
      taker: this.safeInteger(status, 'takerFeeBps', 0) / 10_000,
      percentage: true,
      tierBased: false,
      outcome: handle,
      outcomeId: this.outcomeIdOf(optionId, label),
    };
  }

  /** `ok` while orders are taken (post-only mode included, see `info.status`), `maintenance` otherwise. */
  override async fetchStatus(params = {}): Promise<Status> {
    const status = await this.request('status', 'public', 'GET', params);
    return {
      status: this.safeString(status, 'status') === 'maintenance' ? 'maintenance' : 'ok',
      updated: this.parse8601(this.safeString(status, 'updatedAt')),
      eta: undefined,
      url: undefined,
      info: status,
    };
  }

  override async fetchTime(params = {}): Promise<Int> {
    return this.safeInteger(await this.request('time', 'public', 'GET', params), 'epochMs');
  }

  // -- request bodies ---------------------------------------------------------------------------------------------

  actionOf(side: string): 'BUY' | 'SELL' {
    if (side !== 'buy' && side !== 'sell')
      throw new InvalidOrder(`${this.id} side is buy or sell, got ${side}`);
    return side === 'buy' ? 'BUY' : 'SELL';
  }

  marketBody(
    optionId: string,
    label: OutcomeLabel,
    side: string,
    amount: number,
    price: Num,
    params: Dict,
  ): Dict {
    const action = this.actionOf(side);
    const priceCents = price === undefined ? (action === 'BUY' ? 99 : 1) : this.toCents(price);
    return this.extend(
      { optionId, side: label, action, quantity: amount, priceCents },
      this.omit(params, ['timeInForce']),
    );
  }

  limitBody(
    optionId: string,
    label: OutcomeLabel,
    side: string,
    amount: number,
    price: Num,
    params: Dict,
  ): Dict {
    if (price === undefined) throw new ArgumentsRequired(`${this.id} a limit order needs a price`);
    const timeInForce = this.safeStringUpper(params, 'timeInForce');
    const expiresAt = this.safeValue(params, 'expiresAt');
    return this.extend(
      {
        optionId,
        side: label,
        action: this.actionOf(side),
        quantity: amount,
        limitPriceCents: this.toCents(price),
        timeInForce: timeInForce === 'PO' ? undefined : timeInForce,
        postOnly: timeInForce === 'PO' || this.safeBool(params, 'postOnly') ? true : undefined,
        expiresAt: typeof expiresAt === 'number' ? this.iso8601(expiresAt) : expiresAt,
      },
      this.omit(params, ['timeInForce', 'postOnly', 'expiresAt']),
    );
  }
}
