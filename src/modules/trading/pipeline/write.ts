import { applyPositionChanges, type DecidedFill } from '../../../exchange/decision.js';
import type { TradeRecord } from '../../../exchange/execution.js';
import { normaliseEntry } from '../../../exchange/ledger.js';
import { EMPTY_POSITION, type PositionState } from '../../../exchange/positions.js';
import { sideBySide } from '../../../platform/db/side-by-side.js';
import type { Tx } from '../../../platform/db/types.js';
import type { LedgerRepository } from '../../ledger/repository.js';
import type { DecidedRows, OptionChange } from '../batch-statement.js';
import type { TradeRow, TradingRepository } from '../repository.js';
import { positionMap } from '../rows.js';
import type { DecidedWork } from './work.js';

/** What the decisions' writes need besides the decisions, read first. */
export interface ReadAhead {
  /** The positions of holders the decisions touched that were not locked yet. */
  positions: Map<string, PositionState>;
  fillIds: number[];
  tradeIds: number[];
  /** What each placed-orders listener's reader read (undefined: it has none, or nothing to read). */
  reads: unknown[];
}

/** What the decisions' writes write: each option's book version after them, and each decision's rows with ids. */
export interface Written {
  bookVersions: Map<number, number>;
  rows: Map<DecidedWork, { trades: TradeRow[]; fillIds: number[] }>;
  /** What each placed-orders listener's reader read ahead (undefined: it has none, or nothing to read). */
  reads: unknown[];
}

/**
 * What writing, answering and announcing the decisions need from the database, in one round trip: the positions
 * they changed of holders not locked yet (locked and read), ids for their fills and trades, and what the
 * placed-orders listeners read (`listenerReads`).
 */
export async function readAhead(
  trx: Tx,
  trading: TradingRepository,
  changed: DecidedWork[],
  listenerReads: () => Promise<unknown[]>,
): Promise<ReadAhead> {
  if (changed.length === 0) return { positions: new Map(), fillIds: [], tradeIds: [], reads: [] };
  const unread = changed.flatMap(({ decision, holdings }) =>
    [...decision.positions].filter(([key]) => !holdings.positions.has(key)).map(([, p]) => p),
  );
  const count = (key: 'fills' | 'trades') => changed.reduce((sum, d) => sum + d.decision[key].length, 0);
  const [positions, ids, reads] = await sideBySide([
    trading.lockPositions(trx, unread),
    trading.takeFillAndTradeIds(trx, count('fills'), count('trades')),
    listenerReads(),
  ] as const);
  return { positions: positionMap(positions), ...ids, reads };
}

/**
 * Sends the decisions' writes: one statement for the exchange's rows of every market and one for the ledger,
 * however many orders they hold, the conversions they made, and what they gave back to users (`returns`). Gives
 * what they will have written, and the book versions as written.
 */
export function writeDecisions(
  trx: Tx,
  repositories: { trading: TradingRepository; ledger: LedgerRepository },
  changed: DecidedWork[],
  ahead: ReadAhead,
  returns: { userId: number; cents: number }[],
): { sent: Promise<Map<number, number>>; written: Written } {
  const { trading, ledger } = repositories;
  const rows = decidedRows(changed, ahead);
  const written: Written = { bookVersions: new Map(), rows: new Map(), reads: ahead.reads };
  for (const option of rows.options)
    written.bookVersions.set(option.optionId, option.bookVersion + (option.bookChanged ? 1 : 0));
  let fills = 0;
  let trades = 0;
  for (const d of changed) {
    const fillIds = ahead.fillIds.slice(fills, fills + d.decision.fills.length);
    const tradeIds = ahead.tradeIds.slice(trades, trades + d.decision.trades.length);
    written.rows.set(d, { fillIds, trades: tradeRows(d, fillIds, tradeIds) });
    fills += d.decision.fills.length;
    trades += d.decision.trades.length;
  }
  const writes = sideBySide([
    changed.length > 0 ? trading.writeBatch(trx, rows) : Promise.resolve(new Map<number, number>()),
    ledger.postMany(
      trx,
      changed.flatMap((d) => d.decision.entries),
    ),
    trading.insertConversions(trx, conversionRows(changed)),
    trading.insertReturns(trx, returns),
  ] as const);
  return { sent: writes.then(([bookVersions]) => bookVersions), written };
}

/**
 * What the decisions gave back to each user, to be taken into cash by the user's next collateral step: the holds
 * their requests spent here, and whatever the decisions moved through their transit accounts (what they paid out
 * of the holds, what they received: proceeds, released collateral).
 */
export function returnsOf(decided: DecidedWork[]): { userId: number; cents: number }[] {
  const back = new Map<number, number>();
  const add = (userId: number, cents: number) => back.set(userId, (back.get(userId) ?? 0) + cents);
  for (const { holdings, decision } of decided) {
    for (const [userId, cents] of holdings.funds) add(userId, cents);
    for (const entry of decision.entries)
      for (const { account, amount } of normaliseEntry(entry).postings)
        if (account.kind === 'transit') add(account.userId, amount);
  }
  return [...back]
    .filter(([userId, cents]) => {
      if (cents < 0) throw new Error(`user ${userId} spent ${-cents} cents more than was set aside`);
      return cents > 0;
    })
    .map(([userId, cents]) => ({ userId, cents }));
}

/** Every decision's rows in the shared statement's shape, their fills' places shifted by the fills before them. */
function decidedRows(changed: DecidedWork[], ahead: ReadAhead): DecidedRows {
  const rows: DecidedRows = {
    orders: [],
    newOrderIds: new Set(),
    fills: [],
    fillIds: ahead.fillIds,
    trades: [],
    tradeEventIds: [],
    tradeIds: ahead.tradeIds,
    positions: [],
    options: [],
  };
  for (const d of changed) {
    const { work, decision, holdings } = d;
    const base = rows.fills.length;
    rows.orders.push(...decision.orders.values());
    for (const id of decision.newOrderIds) rows.newOrderIds.add(id);
    rows.fills.push(...decision.fills);
    for (const trade of decision.trades) {
      rows.trades.push({ ...trade, fillIndex: trade.fillIndex + base });
      rows.tradeEventIds.push(work.market.eventId);
    }
    for (const [key, { userId, optionId, side, changes }] of decision.positions) {
      const before = holdings.positions.get(key) ?? ahead.positions.get(key) ?? EMPTY_POSITION;
      rows.positions.push({ userId, optionId, side, state: applyPositionChanges(before, changes) });
    }
    rows.options.push(...optionChanges(d));
  }
  return rows;
}

/** The trades' rows as they are written, with the ids taken for them. */
function tradeRows(d: DecidedWork, fillIds: number[], tradeIds: number[]): TradeRow[] {
  const { market } = d.work;
  return d.decision.trades.map((trade: TradeRecord, index) => ({
    id: tradeIds[index] as number,
    fill_id: fillIds[trade.fillIndex] as number,
    order_id: trade.orderId,
    user_id: trade.userId,
    option_id: (d.decision.fills[trade.fillIndex] as DecidedFill).optionId,
    event_id: market.eventId,
    side: trade.side,
    action: trade.action,
    quantity: trade.quantity,
    price_cents: trade.priceCents,
    fee_cents: trade.feeCents,
    liquidity: trade.liquidity,
    created_at: market.dbNow,
  }));
}

function conversionRows(changed: DecidedWork[]) {
  return changed.flatMap(({ work, decision }) =>
    decision.verdicts.flatMap((verdict) =>
      verdict.type === 'converted'
        ? [{ ...verdict.conversion, eventId: work.market.eventId, createdAt: work.market.dbNow }]
        : [],
    ),
  );
}

/** What a decision changed of each option of its market, to be written. */
function optionChanges({ work, decision }: DecidedWork): OptionChange[] {
  return work.market.options.map((option) => {
    const decided = decision.options.get(option.id);
    const house = decided?.house;
    return {
      optionId: option.id,
      ...(decided?.totals ?? {
        pairsMinted: 0,
        pairsMerged: 0,
        volumeShares: 0,
        volumeCents: 0,
        lastYesPrice: null,
        houseCashCents: 0,
      }),
      ammYesShares: house?.yesShares ?? option.amm_yes_shares,
      ammNoShares: house?.noShares ?? option.amm_no_shares,
      poolYesShares: decision.pool?.yesSets ?? option.pool_yes_shares,
      poolNoShares: decision.pool?.noSets ?? option.pool_no_shares,
      bookChanged: decided?.changed ?? false,
      bookVersion: option.book_version,
    };
  });
}
