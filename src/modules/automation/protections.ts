import type { Kysely } from 'kysely';
import { sidePrice } from '../../exchange/money.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { AppError, NotFoundError, ValidationError } from '../../platform/errors.js';

import type { MarketCatalogue } from '../markets/catalogue.js';
import type { TradingService } from '../trading/service.js';
import type { OrderCommitted } from '../trading/types.js';
import { toPositionView } from '../trading/views.js';
import { PositionClosedError } from './errors.js';
import type { AutomationRepository, ProtectedPosition } from './repository.js';
import type { TradingEvents } from './trading-events.js';
import { cents, marketName } from './words.js';

export interface ProtectionsInput {
  stopLossProbBps?: number | null | undefined;
  takeProfitProbBps?: number | null | undefined;
}

type Trigger = 'stop_loss' | 'take_profit';

const PROTECTION_NAMES: Record<string, string> = {
  'body.stopLossProbBps': 'The stop-loss',
  'body.takeProfitProbBps': 'The take-profit',
};

function sideWord(side: 'YES' | 'NO'): string {
  return side === 'YES' ? 'Yes' : 'No';
}

/**
 * Stop-loss and take-profit on positions. Setting them runs under the option's lock, like any change to its
 * book; firing them runs inside the order whose fill crossed the threshold, so a protective sell is serialised
 * with every other order of the option.
 */
export class ProtectionsService {
  private savepoints = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly automation: AutomationRepository,
    private readonly trading: TradingService,
    private readonly events: TradingEvents,
    private readonly prices: Pick<MarketCatalogue, 'shownYesPrice'>,
  ) {}

  async setProtections(userId: number, positionId: number, input: ProtectionsInput) {
    await this.db.transaction().execute(async (trx) => {
      const found = await this.automation.findPosition(trx, positionId);
      if (!found || found.user_id !== userId) throw new NotFoundError('Position');
      const option = await this.automation.lockOption(trx, found.option_id);
      const position = await this.automation.lockPosition(trx, positionId);
      if (!option || !position) throw new NotFoundError('Position');
      if (position.quantity === 0 || option.event_status !== 'open' || option.closes_at <= new Date()) {
        throw new PositionClosedError();
      }
      const yesPrice = option.last_yes_price ?? (await this.prices.shownYesPrice(option.id, trx));
      const priceBps = sidePrice(position.side, yesPrice) * 100;
      const problems = [];
      const { stopLossProbBps: stopLoss, takeProfitProbBps: takeProfit } = input;
      if (typeof stopLoss === 'number' && stopLoss >= priceBps) {
        problems.push({
          field: 'body.stopLossProbBps',
          message: `must be below the current ${sideWord(position.side)} price of ${priceBps / 100}¢`,
        });
      }
      if (typeof takeProfit === 'number' && takeProfit <= priceBps) {
        problems.push({
          field: 'body.takeProfitProbBps',
          message: `must be above the current ${sideWord(position.side)} price of ${priceBps / 100}¢`,
        });
      }
      if (problems.length > 0) {
        throw new ValidationError(
          problems.map((p) => `${PROTECTION_NAMES[p.field]} ${p.message}`).join('; '),
          problems,
        );
      }
      await this.automation.setProtections(trx, positionId, {
        ...(stopLoss !== undefined ? { stop_loss_bps: stopLoss } : {}),
        ...(takeProfit !== undefined ? { take_profit_bps: takeProfit } : {}),
      });
    });
    return toPositionView(await this.automation.positionView(this.db, positionId));
  }

  /**
   * After a fill: sells every position of the option whose protection fired, at market (IOC, worst price 1),
   * clearing the protection first so it can never fire twice. Each sell fires the order listeners again, so a
   * sell that moves the price on can fire further protections.
   */
  async afterOrders(trx: Tx, changes: OrderCommitted[]): Promise<void> {
    // Only an option where someone holds a protection can have one to fire (known under the option's lock).
    const traded = changes.find((change) => change.trades.length > 0 && change.protectedPositions);
    if (!traded) return;
    const fired = await this.automation.firedProtections(trx, traded.optionId);
    if (fired.length === 0) return;
    await this.automation.clearProtections(
      trx,
      fired.map((p) => p.id),
    );
    for (const position of fired) {
      if (position.quantity > 0) await this.sell(trx, position);
    }
  }

  private async sell(trx: Tx, position: ProtectedPosition): Promise<void> {
    const priceCents = sidePrice(position.side, position.last_yes_price);
    const trigger: Trigger =
      position.stop_loss_bps !== null && position.stop_loss_bps >= priceCents * 100
        ? 'stop_loss'
        : 'take_profit';
    const threshold = (trigger === 'stop_loss' ? position.stop_loss_bps : position.take_profit_bps) as number;
    // Earlier protective sells in this cascade may have traded with this holder's resting orders.
    const current = await this.automation.lockPosition(trx, position.id);
    const available = current ? current.quantity - current.reserved_quantity : 0;
    let outcome: {
      sold: number;
      averagePriceCents: number | null;
      orderId: string | null;
      problem: string | null;
    } = {
      sold: 0,
      averagePriceCents: null,
      orderId: null,
      problem: available > 0 ? null : 'all its shares are held by your open sell orders',
    };
    if (available > 0) {
      this.savepoints += 1;
      try {
        const placed = await this.automation.inSavepoint(trx, `protection_${this.savepoints}`, () =>
          this.trading.placeInTransaction(trx, position.user_id, {
            optionId: position.option_id,
            kind: 'market',
            side: position.side,
            action: 'SELL',
            quantity: available,
            priceCents: 1,
          }),
        );
        outcome = {
          sold: placed.filledQuantity,
          averagePriceCents: placed.averagePriceCents,
          orderId: placed.id,
          problem: null,
        };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        outcome = { ...outcome, problem: 'no one was buying' };
      }
    }
    await this.notifyTriggered(trx, position, trigger, threshold, priceCents, outcome);
  }

  private async notifyTriggered(
    trx: Tx,
    position: ProtectedPosition,
    trigger: Trigger,
    thresholdBps: number,
    priceCents: number,
    outcome: {
      sold: number;
      averagePriceCents: number | null;
      orderId: string | null;
      problem: string | null;
    },
  ): Promise<void> {
    const [market] = await this.automation.marketNames(trx, [position.option_id]);
    if (!market) return;
    const name = trigger === 'stop_loss' ? 'stop-loss' : 'take-profit';
    const crossed = trigger === 'stop_loss' ? 'at or below' : 'at or above';
    const result =
      outcome.sold > 0
        ? `sold ${outcome.sold} at ${cents(outcome.averagePriceCents ?? 0)}` +
          (outcome.sold < position.quantity ? `; ${position.quantity - outcome.sold} still held` : '')
        : `nothing could be sold: ${outcome.problem}`;
    const data = {
      positionId: String(position.id),
      optionId: String(position.option_id),
      eventSlug: market.event_slug,
      optionLabel: market.option_label,
      side: position.side,
      trigger,
      thresholdProbBps: thresholdBps,
      triggerPriceCents: priceCents,
      soldQuantity: outcome.sold,
      averagePriceCents: outcome.averagePriceCents,
      orderId: outcome.orderId,
      outcome: outcome.sold > 0 ? 'sold' : 'not_sold',
    };
    await this.events.publish(
      trx,
      [
        {
          userId: position.user_id,
          type: 'position.protection_triggered',
          title: `${trigger === 'stop_loss' ? 'Stop-loss' : 'Take-profit'} triggered`,
          body:
            `${position.side} of ${marketName(market)} traded at ${priceCents}¢, ${crossed} your ${name} of ` +
            `${thresholdBps / 100}¢: ${result}. The protection is now cleared.`,
          data,
        },
      ],
      [{ userId: position.user_id, type: 'position.protection_triggered', data }],
    );
  }
}
