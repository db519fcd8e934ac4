import type { Kysely } from 'kysely';
import { type Outcome, settlePosition } from '../../exchange/positions.js';
import { inventoryPayout, settleOption } from '../../exchange/settlement.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { NotFoundError } from '../../platform/errors.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { TradingRepository } from './repository.js';
import { positionStateOf } from './rows.js';
import type { SettlementRepository } from './settlement-repository.js';

/** Paying out an option at settlement, and what it would pay (the preview an operator reads before settling). */
export class SettlementService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly settlements: SettlementRepository,
    private readonly ledger: LedgerRepository,
  ) {}

  /**
   * What settling an option would pay, by the same rule as `settleOption`, without paying it: to holders (and which
   * users they are) and to the house: its market maker and an exclusive event's conversion pool.
   */
  async previewSettlement(
    option: HouseHoldings & { id: number },
    yesPayoutCents: number,
  ): Promise<{ holderIds: number[]; payoutCents: number; housePayoutCents: number }> {
    const holders = await this.settlements.holdersOf(this.db, option.id, false);
    let payoutCents = 0;
    for (const row of holders)
      payoutCents += settlePosition(positionStateOf(row), row.side, yesPayoutCents).payoutCents;
    const housePayoutCents =
      inventoryPayout({ yesShares: option.amm_yes_shares, noShares: option.amm_no_shares }, yesPayoutCents) +
      inventoryPayout({ yesShares: option.pool_yes_shares, noShares: option.pool_no_shares }, yesPayoutCents);
    return { holderIds: [...new Set(holders.map((row) => row.user_id))], payoutCents, housePayoutCents };
  }

  /**
   * Settles an option under its lock: the settlement (src/exchange/settlement.ts) pays every holder, the house maker
   * and the conversion pool out of escrow; here it is read and stored.
   */
  async settleOption(
    trx: Tx,
    optionId: number,
    eventId: number,
    resolved: { outcome: Outcome; yesPayoutCents: number },
  ) {
    const market = await this.trading.lockMarket(trx, { kind: 'option', optionId });
    const option = market?.options[0];
    if (!option) throw new NotFoundError('Option');
    const holders = await this.settlements.holdersOf(trx, optionId);
    const settled = settleOption({
      optionId,
      eventId,
      label: option.label,
      ...resolved,
      holders: holders.map((row) => ({
        userId: row.user_id,
        side: row.side,
        position: positionStateOf(row),
      })),
      house: { yesShares: option.amm_yes_shares, noShares: option.amm_no_shares },
      pool: { yesShares: option.pool_yes_shares, noShares: option.pool_no_shares },
    });
    await this.ledger.post(trx, settled.entry);
    // Payouts reach the holders through their transit accounts, as returns their next step takes into cash.
    await this.trading.insertReturns(trx, returnsOf(settled.records));
    await this.settlements.savePositions(trx, settled.positions);
    await this.settlements.insertSettlements(trx, settled.records);
    await this.settlements.settleHouse(trx, optionId, settled.housePayoutCents);
    return settled.records;
  }
}

/** Each holder's payout, as one return a user. */
function returnsOf(records: { userId: number; payoutCents: number }[]): { userId: number; cents: number }[] {
  const paid = new Map<number, number>();
  for (const { userId, payoutCents } of records) paid.set(userId, (paid.get(userId) ?? 0) + payoutCents);
  return [...paid].filter(([, cents]) => cents > 0).map(([userId, cents]) => ({ userId, cents }));
}

/** What the house holds in an option: its market maker's inventory and an exclusive event's conversion pool's sets. */
interface HouseHoldings {
  amm_yes_shares: number;
  amm_no_shares: number;
  pool_yes_shares: number;
  pool_no_shares: number;
}
