import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { AppError, FeatureDisabledError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import type { PlacedOrderView } from '../trading/schemas.js';
import type { TradingService } from '../trading/service.js';
import type { OrderCommitted } from '../trading/types.js';
import type { CopyRepository, MirrorRow, NewMirror } from './copy-repository.js';
import { CopyFollowLimitReachedError } from './errors.js';
import {
  COPY_RULES,
  type FollowInput,
  settingsFrom,
  startOfUtcDay,
  toFollowView,
} from './follow-settings.js';
import type { AutomationRepository } from './repository.js';
import type { TradingEvents } from './trading-events.js';
import { COPY_ORDER_PREFIX, isCopyOrder, marketName } from './words.js';

export { COPY_RULES, type FollowInput, type SizingInput } from './follow-settings.js';

/** A worker that claimed a mirror and went silent this long is presumed gone; another one resumes it. */
const RESUME_AFTER_MS = 2 * 60_000;
const MIRRORS_PER_RUN = 20;

export interface FlagReader {
  isEnabled(key: string): Promise<boolean>;
}

export interface ErrorLog {
  error(details: Record<string, unknown>, message: string): void;
}

type Decision = { quantity: number } | { skip: string; notify: boolean };

/**
 * Copy trading. A leader's filled market trade writes one mirror per enabled follower in the leader's own
 * transaction; a job then places each mirror as the follower's own market trade, in its own transaction, with an
 * idempotency key made of the leader's order and the follower, so a retry never doubles it and one follower's
 * failure touches no one else.
 */
export class CopyTradingService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly copy: CopyRepository,
    private readonly automation: AutomationRepository,
    private readonly trading: TradingService,
    private readonly events: TradingEvents,
    private readonly flags: FlagReader,
    private readonly settings: { maxOrderQuantity: number },
    private readonly log: ErrorLog,
  ) {}

  private async requireEnabled(): Promise<void> {
    if (!(await this.flags.isEnabled('copyTrading'))) throw new FeatureDisabledError('Copy trading');
  }

  async list(followerId: number) {
    await this.requireEnabled();
    const follows = await this.copy.followsOf(this.db, followerId);
    const data = [];
    for (const follow of follows) {
      const used = await this.copy.buyNotionalSince(this.db, followerId, follow.leader_id, startOfUtcDay());
      data.push(toFollowView(follow, follow.leader_username, used));
    }
    return { data };
  }

  async follow(followerId: number, input: FollowInput) {
    await this.requireEnabled();
    if ((input.leaderId === undefined) === (input.leaderUsername === undefined)) {
      throw new ValidationError('Name the trader to copy by leaderId or by leaderUsername (one of them)', [
        { field: 'body.leaderId', message: 'or leaderUsername is required (not both)' },
      ]);
    }
    const leader = await this.copy.findUser(
      this.db,
      input.leaderId !== undefined
        ? { id: Number(input.leaderId) }
        : { username: input.leaderUsername as string },
    );
    if (!leader) throw new NotFoundError('Trader');
    if (leader.id === followerId) {
      throw new ValidationError('You cannot copy your own trades', [
        { field: input.leaderId !== undefined ? 'body.leaderId' : 'body.leaderUsername', message: 'is you' },
      ]);
    }
    return this.db.transaction().execute(async (trx) => {
      const existing = await this.copy.lockFollow(trx, followerId, leader.id);
      if (!existing && (await this.copy.countFollows(trx, followerId)).n >= COPY_RULES.maxFollows) {
        throw new CopyFollowLimitReachedError(COPY_RULES.maxFollows);
      }
      const row = await this.copy.upsertFollow(trx, followerId, leader.id, settingsFrom(input, existing));
      const used = await this.copy.buyNotionalSince(trx, followerId, leader.id, startOfUtcDay());
      return { created: !existing, follow: toFollowView(row, leader.username, used) };
    });
  }

  async unfollow(followerId: number, leaderId: number): Promise<void> {
    await this.requireEnabled();
    if (!(await this.copy.deleteFollow(this.db, followerId, leaderId)))
      throw new NotFoundError('Copied trader');
  }

  async mirrors(followerId: number, limit: number, cursor?: string) {
    await this.requireEnabled();
    const decoded = decodeCursor(cursor, 1);
    const rows = await this.copy.listMirrors(this.db, followerId, decoded ? Number(decoded[0]) : null, limit);
    return toPage(
      rows,
      limit,
      (row) => ({
        id: String(row.id),
        leaderId: String(row.leader_id),
        leaderUsername: row.leader_username,
        leaderOrderId: String(row.leader_order_id),
        optionId: String(row.option_id),
        eventSlug: row.event_slug,
        optionLabel: row.option_label,
        side: row.side,
        action: row.action,
        leaderQuantity: row.leader_quantity,
        worstPriceCents: row.worst_price_cents,
        status: row.status,
        quantity: row.quantity,
        filledQuantity: row.filled_quantity,
        notionalCents: row.status === 'placed' ? row.notional_cents : 0,
        orderId: row.order_id === null ? null : String(row.order_id),
        reason: row.reason,
        createdAt: row.created_at.toISOString(),
        processedAt: row.processed_at ? row.processed_at.toISOString() : null,
      }),
      (row) => [row.id],
    );
  }

  /**
   * In the leader's order transaction: a filled market trade that is not itself a mirror writes one mirror per
   * enabled follower. An order nobody copies costs one indexed read.
   */
  async afterOrders(trx: Tx, changes: OrderCommitted[]): Promise<void> {
    const copied = changes.filter(
      ({ order }) => order.kind === 'market' && order.filled_quantity > 0 && !isCopyOrder(order),
    );
    if (copied.length === 0) return;
    const followers = await this.copy.enabledFollowers(trx, [
      ...new Set(copied.map(({ order }) => order.user_id)),
    ]);
    if (followers.length === 0) return;
    const mirrors: NewMirror[] = [];
    for (const change of copied) {
      const { order } = change;
      const own = change.trades.filter((t) => t.order_id === order.id);
      const quantity = own.reduce((sum, t) => sum + t.quantity, 0);
      const notional = own.reduce((sum, t) => sum + t.quantity * t.price_cents, 0);
      if (quantity === 0) continue;
      const average = notional / quantity;
      // Rounded in the follower's favour: a copy buys no dearer and sells no cheaper than the leader did.
      const worstPriceCents =
        order.action === 'BUY' ? Math.max(1, Math.floor(average)) : Math.min(99, Math.ceil(average));
      for (const { follower_id } of followers.filter((f) => f.leader_id === order.user_id)) {
        mirrors.push({
          leaderOrderId: order.id,
          leaderId: order.user_id,
          followerId: follower_id,
          optionId: order.option_id,
          side: order.side,
          action: order.action,
          leaderQuantity: quantity,
          leaderNotionalCents: notional,
          worstPriceCents,
        });
      }
    }
    await this.copy.insertMirrors(trx, mirrors);
  }

  /** Job: places (or skips) the mirrors that are due, one follower at a time. */
  async mirrorDue(): Promise<number> {
    let handled = 0;
    const enabled = await this.flags.isEnabled('copyTrading');
    while (handled < MIRRORS_PER_RUN) {
      const claimed = await this.db.transaction().execute((trx) => this.claim(trx, enabled));
      if (!claimed) break;
      handled += 1;
      if (claimed.quantity !== null) await this.place(claimed.mirror, claimed.quantity);
    }
    return handled;
  }

  private async claim(
    trx: Tx,
    enabled: boolean,
  ): Promise<{ mirror: MirrorRow; quantity: number | null } | null> {
    const mirror = await this.copy.claimNext(trx, RESUME_AFTER_MS);
    if (!mirror) return null;
    if (mirror.status === 'processing' && mirror.quantity !== null) {
      await this.copy.updateMirror(trx, mirror.id, { status: 'processing' });
      return { mirror, quantity: mirror.quantity };
    }
    const decision = await this.size(trx, mirror, enabled);
    if ('skip' in decision) {
      await this.copy.updateMirror(trx, mirror.id, { status: 'skipped', reason: decision.skip });
      if (decision.notify) await this.notifySkipped(trx, mirror, decision.skip);
      return { mirror, quantity: null };
    }
    await this.copy.updateMirror(trx, mirror.id, {
      status: 'processing',
      quantity: decision.quantity,
      notionalCents: mirror.action === 'BUY' ? decision.quantity * mirror.worst_price_cents : 0,
    });
    return { mirror, quantity: decision.quantity };
  }

  /** The follower's quantity by their size rule, within their caps, cash-free checks and shares held. */
  private async size(trx: Tx, mirror: MirrorRow, enabled: boolean): Promise<Decision> {
    if (!enabled) return { skip: 'copy trading is switched off', notify: false };
    const follow = await this.copy.lockFollow(trx, mirror.follower_id, mirror.leader_id);
    if (!follow?.enabled) return { skip: 'you no longer copy this trader', notify: false };
    if (mirror.created_at.getTime() < Date.now() - COPY_RULES.staleAfterMinutes * 60_000) {
      return {
        skip: `more than ${COPY_RULES.staleAfterMinutes} minutes passed since the leader's trade`,
        notify: true,
      };
    }
    const byRule =
      follow.sizing_mode === 'fixed'
        ? (follow.fixed_quantity as number)
        : Math.floor((mirror.leader_quantity * (follow.fraction_bps as number)) / 10_000);
    if (byRule === 0)
      return { skip: 'your fraction of the leader’s trade is less than one share', notify: true };
    let quantity = Math.min(byRule, follow.max_quantity_per_trade, this.settings.maxOrderQuantity);
    if (mirror.action === 'SELL') {
      const held = await this.copy.availableShares(trx, mirror.follower_id, mirror.option_id, mirror.side);
      if (held === 0) return { skip: `you hold no ${mirror.side} shares to sell`, notify: true };
      quantity = Math.min(quantity, held);
    } else {
      const used = await this.copy.buyNotionalSince(
        trx,
        mirror.follower_id,
        mirror.leader_id,
        startOfUtcDay(),
      );
      const room = Math.floor((follow.daily_limit_cents - used) / mirror.worst_price_cents);
      if (room <= 0) {
        return {
          skip: `your daily limit of ${follow.daily_limit_cents}¢ for this trader is reached`,
          notify: true,
        };
      }
      quantity = Math.min(quantity, room);
    }
    return { quantity };
  }

  private async place(mirror: MirrorRow, quantity: number): Promise<void> {
    try {
      const result = await this.trading.placeOrder(
        mirror.follower_id,
        {
          optionId: mirror.option_id,
          kind: 'market',
          side: mirror.side,
          action: mirror.action,
          quantity,
          priceCents: mirror.worst_price_cents,
          clientOrderId: `${COPY_ORDER_PREFIX}${mirror.leader_order_id}`,
        },
        `copy:${mirror.leader_order_id}:${mirror.follower_id}`,
      );
      const placed = result.body as Static<typeof PlacedOrderView>;
      await this.copy.updateMirror(this.db, mirror.id, {
        status: 'placed',
        orderId: Number(placed.id),
        filledQuantity: placed.filledQuantity,
        notionalCents: placed.trades.reduce((sum, t) => sum + t.quantity * t.priceCents, 0),
      });
    } catch (error) {
      if (!(error instanceof AppError)) {
        // Left processing: another run resumes it after a while, and the idempotency key prevents a double.
        this.log.error({ err: error, mirrorId: mirror.id }, 'copy trade could not be placed');
        return;
      }
      const reason = SKIP_REASONS[error.code] ?? error.message;
      await this.db.transaction().execute(async (trx) => {
        await this.copy.updateMirror(trx, mirror.id, { status: 'skipped', reason, notionalCents: 0 });
        await this.notifySkipped(trx, mirror, reason);
      });
    }
  }

  private async notifySkipped(trx: Tx, mirror: MirrorRow, reason: string): Promise<void> {
    const [market] = await this.automation.marketNames(trx, [mirror.option_id]);
    const leader = await this.copy.findUser(trx, { id: mirror.leader_id });
    const what =
      `${mirror.action.toLowerCase()} ${mirror.side}${market ? ` of ${marketName(market)}` : ''} at ` +
      `${mirror.worst_price_cents}¢ or better`;
    await this.events.publish(
      trx,
      [
        {
          userId: mirror.follower_id,
          type: 'copy.skipped',
          title: 'Copy trade skipped',
          body: `Your copy of @${leader?.username ?? 'trader'}’s trade (${what}) was skipped: ${reason}.`,
          data: {
            mirrorId: String(mirror.id),
            leaderId: String(mirror.leader_id),
            leaderOrderId: String(mirror.leader_order_id),
            optionId: String(mirror.option_id),
            reason,
          },
        },
      ],
      [],
    );
  }
}

const SKIP_REASONS: Record<string, string> = {
  INSUFFICIENT_FUNDS: 'not enough cash',
  INSUFFICIENT_SHARES: 'not enough shares to sell',
  NO_LIQUIDITY: 'nothing could fill at the leader’s price or better',
  MARKET_CLOSED: 'the market is no longer open',
};
