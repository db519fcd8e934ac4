import type { Instruction, NewOrder } from '../../../exchange/decision.js';
import { positionKey } from '../../../exchange/execution.js';
import { type KeyAccount, type KeyLimits, spansMarkets } from '../../../exchange/key-limits.js';
import { EMPTY_POSITION, type PositionState } from '../../../exchange/positions.js';
import { sideBySide } from '../../../platform/db/side-by-side.js';
import type { Tx } from '../../../platform/db/types.js';
import type { KeyUsageRepository, LimitedKey } from '../key-usage-repository.js';
import type { TradingRepository } from '../repository.js';
import { positionStateOf } from '../rows.js';
import type { BookOutcome, BookRequest } from '../types.js';
import type { HeldWork, MarketWork } from './work.js';

type PlaceRequest = Extract<BookRequest, { type: 'place' }>;
type AmendBookRequest = Extract<BookRequest, { type: 'amend' }>;

/**
 * What the takers bring, for every market of the transaction in one round trip: the holds their collateral steps
 * set aside are spent (a request whose hold is gone, given back past its expiry, is answered `expired` and not
 * decided), the positions sellers sell from and converters give from are locked, and the new orders' and
 * conversions' ids are taken. Each market's requests still to decide, as the decision takes them.
 */
export async function holdTakers(
  trx: Tx,
  repositories: { trading: TradingRepository; keyUsage: KeyUsageRepository },
  works: MarketWork[],
  expired: () => BookOutcome,
): Promise<HeldWork[]> {
  const { trading, keyUsage } = repositories;
  const todo = works.map((work) =>
    work.requests.flatMap((_, index) => (work.outcomes[index] ? [] : [index])),
  );
  const taken = works.flatMap((work, w) =>
    (todo[w] as number[]).map((index) => work.requests[index] as BookRequest),
  );
  const holdIds = taken.flatMap((request) => ('hold' in request && request.hold ? [request.hold.id] : []));
  const orders = taken.filter((r) => r.type === 'place' || r.type === 'amend').length;
  const wanted = positionsWanted(works, todo);
  const limited = limitedKeys(taken);
  const spanning = [...limited.values()].filter((key) => spansMarkets(key.limits));
  const [{ spent, ids }, conversionIds, positions, usage] = await sideBySide([
    trading.spendHoldsAndTakeOrderIds(trx, holdIds, orders),
    trading.takeConversionIds(trx, taken.filter((r) => r.type === 'convert').length),
    lockPositions(trx, trading, wanted),
    keyUsage.lockAndRead(trx, spanning),
  ] as const);
  // One map for the whole transaction: its markets are decided in turn, each going on from what the last left.
  const keys = new Map<string, KeyAccount>(
    [...limited].map(([credential, key]) => [
      credential,
      { limits: key.limits, usage: usage.get(credential) ?? { openOrders: 0, dailyLossCents: 0 } },
    ]),
  );
  return works.map((work, w) => {
    const indexes = (todo[w] as number[]).filter((index) => {
      const request = work.requests[index] as BookRequest;
      if (!('hold' in request) || !request.hold || spent.has(request.hold.id)) return true;
      work.outcomes[index] = expired();
      return false;
    });
    const funds = new Map<number, number>();
    const instructions = indexes.map((index): Instruction => {
      const request = work.requests[index] as BookRequest;
      // Every payer is known to the decision, with what it brought (nothing, for an amend its order's collateral
      // covers), so that what the decision gives back to it within the transaction counts for its next order.
      if (paysCash(request))
        funds.set(request.userId, (funds.get(request.userId) ?? 0) + (request.hold?.cents ?? 0));
      return instructionOf(request, work, ids, conversionIds);
    });
    return { work, indexes, holdings: { funds, positions, keys }, instructions };
  });
}

/** The API keys with limits that place or amend orders among the requests, by credential (`apiKey:<id>`). */
function limitedKeys(requests: BookRequest[]): Map<string, LimitedKey & { limits: KeyLimits }> {
  const keys = new Map<string, LimitedKey & { limits: KeyLimits }>();
  for (const request of requests) {
    if (request.type !== 'place' && request.type !== 'amend') continue;
    const { placedBy, keyLimits } = request.request;
    const match = placedBy ? /^apiKey:(\d+)$/.exec(placedBy) : null;
    if (!placedBy || !keyLimits || !match) continue;
    keys.set(placedBy, {
      credential: placedBy,
      keyId: Number(match[1]),
      userId: request.userId,
      limits: keyLimits,
    });
  }
  return keys;
}

/** A request as the decision takes it, with the ids it needs taken (in order) from those taken for all. */
function instructionOf(
  request: BookRequest,
  work: MarketWork,
  ids: number[],
  conversionIds: number[],
): Instruction {
  switch (request.type) {
    case 'place':
      return { type: 'place', order: newOrder(request, ids.shift() as number, work.market.dbNow) };
    case 'amend':
      return amendOf(request, ids.shift() as number);
    case 'convert':
      return { type: 'convert', id: conversionIds.shift() as number, request: request.request };
    default:
      return request;
  }
}

/** Whether a request may spend cash: a purchase (placed, or amended), a split. */
function paysCash(request: BookRequest): request is Extract<BookRequest, { hold?: unknown }> {
  if (request.type === 'place' || request.type === 'amend') return request.request.action === 'BUY';
  return request.type === 'convert' && request.request.kind === 'split';
}

/** The holders whose positions the decisions read: sellers in the option they sell, converters in every option. */
function positionsWanted(works: MarketWork[], todo: number[][]): { userId: number; optionId: number }[] {
  return works.flatMap((work, w) =>
    (todo[w] as number[]).flatMap((index) => {
      const request = work.requests[index] as BookRequest;
      if (request.type === 'convert')
        return work.market.options.map((o) => ({ userId: request.userId, optionId: o.id }));
      if (request.type !== 'place' && request.type !== 'amend') return [];
      // A seller's shares, and the holding of a buyer whose key limits its position.
      const { action, keyLimits } = request.request;
      if (action === 'SELL' || (keyLimits?.maxPositionShares ?? null) !== null)
        return [{ userId: request.userId, optionId: request.request.optionId }];
      return [];
    }),
  );
}

/** Locks the wanted positions (creating none); every wanted one is in the answer, empty when it has no row. */
async function lockPositions(
  trx: Tx,
  trading: TradingRepository,
  wanted: { userId: number; optionId: number }[],
): Promise<Map<string, PositionState>> {
  const positions = new Map<string, PositionState>();
  for (const { userId, optionId } of wanted) {
    positions.set(positionKey(userId, optionId, 'YES'), EMPTY_POSITION);
    positions.set(positionKey(userId, optionId, 'NO'), EMPTY_POSITION);
  }
  const rows = await trading.lockPositions(trx, wanted);
  for (const row of rows)
    positions.set(positionKey(row.user_id, row.option_id, row.side), positionStateOf(row));
  return positions;
}

/** An order as the decision takes it: its time in force settled, a relative expiry made absolute on `now`. */
function newOrder(request: PlaceRequest, id: number, now: Date): NewOrder {
  const { request: order, userId } = request;
  const expiresAt =
    order.expiresAt ??
    (order.expiresInHours ? new Date(now.getTime() + order.expiresInHours * 3_600_000) : null);
  const timeInForce = order.kind === 'market' ? 'IOC' : (order.timeInForce ?? (expiresAt ? 'GTD' : 'GTC'));
  return {
    id,
    optionId: order.optionId,
    userId,
    kind: order.kind,
    side: order.side,
    action: order.action,
    quantity: order.quantity,
    priceCents: order.priceCents,
    timeInForce,
    postOnly: order.postOnly ?? false,
    expiresAt: timeInForce === 'GTD' ? expiresAt : null,
    clientOrderId: order.clientOrderId ?? null,
    placedBy: order.placedBy ?? null,
  };
}

function amendOf(request: AmendBookRequest, replacementId: number): Instruction {
  const { request: amend, userId } = request;
  return {
    type: 'amend',
    optionId: amend.optionId,
    orderId: amend.orderId,
    userId,
    remainingQuantity: amend.remainingQuantity,
    priceCents: amend.priceCents,
    replacement: { id: replacementId, clientOrderId: amend.clientOrderId, placedBy: amend.placedBy },
  };
}
