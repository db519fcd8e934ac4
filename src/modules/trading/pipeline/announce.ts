import type { PlacedVerdict } from '../../../exchange/decision.js';
import type { OrderState } from '../../../exchange/orders.js';
import { sideBySide } from '../../../platform/db/side-by-side.js';
import type { Tx } from '../../../platform/db/types.js';
import type { OrderRow } from '../repository.js';
import { orderRowOf } from '../rows.js';
import type {
  BookChange,
  ConversionCommitted,
  EndReason,
  OrderCommitted,
  PlacedScope,
  TradingListeners,
} from '../types.js';
import { versionOf } from './answer.js';
import type { DecidedWork } from './work.js';
import type { Written } from './write.js';

/**
 * Tells the listeners what the decisions changed, in their transaction: market data first, then the orders'
 * listeners (notifications, webhooks, protections, copy trading), each kind once for every market, side by side.
 */
export class Announcer {
  constructor(private readonly listeners: TradingListeners) {}

  /** The placed-orders listeners' reads, when the decisions traded or cancelled (sent with the read-ahead). */
  read(trx: Tx, changed: DecidedWork[]): Promise<unknown[]> {
    const scope = placedScope(changed);
    if (scope.orders === 0) return Promise.resolve([]);
    return sideBySide(this.listeners.placed.map(({ read }) => (read ? read(trx, scope) : Promise.resolve())));
  }

  /** None waits for another's statements to answer before sending its own. */
  async announce(trx: Tx, changed: DecidedWork[], written: Written): Promise<void> {
    const changes = changed.flatMap((d) => bookChanges(d, written));
    const told = changes.length > 0 ? this.listeners.book.map((listener) => listener(trx, changes)) : [];
    // The orders' listeners too: the books' notices, sent first, still come before anything their work adds.
    await sideBySide([...told, this.announceOrders(trx, changed, written)]);
  }

  private async announceOrders(trx: Tx, changed: DecidedWork[], written: Written) {
    const { placed, ended, shrunk, converted } = orderChanges(changed, written);
    if (placed.length > 0)
      await sideBySide(
        this.listeners.placed.map(({ announce }, index) => announce(trx, placed, written.reads[index])),
      );
    for (const [reason, orders] of ended) {
      if (orders.length > 0)
        await sideBySide(this.listeners.ended.map((listener) => listener(trx, orders, reason)));
    }
    if (shrunk.length > 0) await sideBySide(this.listeners.amended.map((listener) => listener(trx, shrunk)));
    if (converted.length > 0)
      await sideBySide(this.listeners.converted.map((listener) => listener(trx, converted)));
  }
}

/** Each changed option's book change: the levels it touched as they now stand, and its fills. */
function bookChanges(d: DecidedWork, written: Written): BookChange[] {
  const { decision, work } = d;
  const fillIds = written.rows.get(d)?.fillIds ?? [];
  const changes: BookChange[] = [];
  for (const [optionId, option] of decision.options) {
    const bookVersion = written.bookVersions.get(optionId);
    if (!option.changed || bookVersion === undefined) continue;
    changes.push({
      optionId,
      bookVersion,
      levels: option.levels,
      fills: decision.fills.flatMap((fill, index) =>
        fill.optionId === optionId
          ? [
              {
                id: fillIds[index] as number,
                yesPriceCents: fill.yesPrice,
                quantity: fill.quantity,
                takerSide: fill.takerSide,
                takerAction: fill.takerAction,
                at: work.market.dbNow.toISOString(),
              },
            ]
          : [],
      ),
    });
  }
  return changes;
}

/** The orders the decisions placed, ended, shrank, and the conversions they made, as their listeners take them. */
function orderChanges(changed: DecidedWork[], written: Written) {
  const placed: OrderCommitted[] = [];
  const ended = new Map<EndReason, OrderRow[]>();
  const shrunk: OrderRow[] = [];
  const converted: ConversionCommitted[] = [];
  for (const d of changed) {
    const { market } = d.work;
    const trades = written.rows.get(d)?.trades ?? [];
    const row = (order: OrderState) => orderRowOf(order, market.dbNow, versionOf(market, order, written));
    const endOf = (reason: EndReason, orders: OrderState[]) =>
      ended.set(reason, [...(ended.get(reason) ?? []), ...orders.map(row)]);
    const place = (verdict: PlacedVerdict) => {
      const option = market.options.find((o) => o.id === verdict.order.optionId);
      placed.push({
        optionId: verdict.order.optionId,
        eventId: market.eventId,
        names: { eventSlug: market.slug, eventTitle: market.title, optionLabel: option?.label ?? '' },
        protectedPositions: option?.has_protections ?? true,
        order: row(verdict.order),
        trades: trades.slice(verdict.trades.from, verdict.trades.to),
        makerOrders: verdict.makers.map(row),
        cancelledOrders: verdict.selfTradeCancelled.map(row),
      });
    };
    for (const verdict of d.decision.verdicts) {
      if (verdict.type === 'placed') place(verdict);
      if (verdict.type === 'ended') endOf(verdict.reason, verdict.orders);
      if (verdict.type === 'amended' && verdict.replacement) {
        endOf('cancelled', [verdict.previous]);
        place(verdict.replacement);
      } else if (verdict.type === 'amended' && verdict.order !== verdict.previous)
        shrunk.push(row(verdict.order));
      if (verdict.type === 'converted')
        converted.push({
          ...verdict.conversion,
          eventId: market.eventId,
          createdAt: market.dbNow,
          names: {
            eventSlug: market.slug,
            eventTitle: market.title,
            labels: new Map(market.options.map((option) => [option.id, option.label])),
          },
        });
    }
  }
  return { placed, ended, shrunk, converted };
}

/** Whom the orders the decisions placed may concern: the users of their trades and of the orders they cancelled. */
function placedScope(changed: DecidedWork[]): PlacedScope {
  const users = new Set<number>();
  let orders = 0;
  for (const { decision } of changed) {
    const cancelled = decision.verdicts.flatMap((verdict) =>
      verdict.type === 'placed'
        ? verdict.selfTradeCancelled
        : verdict.type === 'amended' && verdict.replacement
          ? verdict.replacement.selfTradeCancelled
          : [],
    );
    for (const trade of decision.trades) users.add(trade.userId);
    for (const order of cancelled) users.add(order.userId);
    orders += decision.trades.length + cancelled.length;
  }
  return { users: [...users], orders };
}
