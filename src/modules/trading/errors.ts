import type { KeyLimitRefusal } from '../../exchange/key-limits.js';
import { AppError, ConflictError, ServiceUnavailableError } from '../../platform/errors.js';

export class InsufficientSharesError extends ConflictError {
  constructor(needed: number, available: number) {
    super('INSUFFICIENT_SHARES', 'Not enough shares to sell: to bet against YES, buy NO', {
      needed,
      available,
    });
  }
}

export class MarketClosedError extends ConflictError {
  constructor(status: string) {
    super('MARKET_CLOSED', `This market is not open for trading (it is ${status})`, { status });
  }
}

export class NoLiquidityError extends ConflictError {
  constructor() {
    super(
      'NO_LIQUIDITY',
      'Nothing on the book or from the house can fill this trade at that price; nothing was charged',
    );
  }
}

export class OrderNotOpenError extends ConflictError {
  constructor(status: string) {
    super('ORDER_NOT_OPEN', `This order is no longer open (it is ${status})`, { status });
  }
}

export class IdempotencyMismatchError extends ConflictError {
  constructor() {
    super(
      'IDEMPOTENCY_MISMATCH',
      'This Idempotency-Key (or clientOrderId) was used with a different request',
    );
  }
}

/** The option's book stayed locked past `lock_timeout`; nothing of the order was written. */
export class OptionBusyError extends ServiceUnavailableError {
  constructor() {
    super('OPTION_BUSY', 'This option is busy; nothing was placed, retry shortly', 1);
  }
}

/** The option's order queue on this instance is full; the order was not taken. */
export class OrderQueueFullError extends ServiceUnavailableError {
  constructor(limit: number) {
    super('ORDER_QUEUE_FULL', `${limit} orders are already waiting for this option; retry shortly`, 1);
  }
}

export class EventNotExclusiveError extends ConflictError {
  constructor() {
    super(
      'EVENT_NOT_EXCLUSIVE',
      'Only the options of an exclusive event (exactly one of them wins) convert into one another',
    );
  }
}

/** A post-only order would have met resting liquidity (or a house quote) on arrival; nothing was written. */
export class PostOnlyWouldTakeError extends ConflictError {
  constructor() {
    super(
      'POST_ONLY_WOULD_TAKE',
      'This post-only order would trade on arrival (something rests at its price or better); nothing was placed',
    );
  }
}

/** A fill-or-kill order could not fill whole at once; nothing was written or charged. */
export class FillOrKillError extends ConflictError {
  constructor(fillableQuantity: number) {
    super(
      'FOK_NOT_FILLED',
      `This fill-or-kill order cannot fill whole now (only ${fillableQuantity} could); nothing was placed or charged`,
      { fillableQuantity },
    );
  }
}

/** The refusal a request met the first time, answered again to a retry under the same idempotency key. */
export class ReplayedRefusalError extends AppError {
  readonly replayed = true;

  constructor(status: number, stored: unknown) {
    const body = (stored ?? {}) as { error?: string; code?: string; details?: unknown };
    super(status, body.code ?? 'CONFLICT', body.error ?? 'Refused', body.details);
  }
}

/**
 * A request was not decided within its deadline (REQUEST_DEADLINE_MS): it waited for its market that long, or
 * what was set aside for it expired first. Nothing of it was written.
 */
export class RequestDeadlineError extends ServiceUnavailableError {
  constructor(deadlineMs: number) {
    super(
      'REQUEST_DEADLINE_EXCEEDED',
      `The order was not decided within ${deadlineMs} ms; nothing was placed, retry shortly`,
      1,
    );
  }
}

/** The placing API key's risk limits refuse the order (src/exchange/key-limits.ts); nothing was placed or charged. */
export class KeyLimitError extends ConflictError {
  constructor(refusal: KeyLimitRefusal) {
    const { code, ...details } = refusal;
    super(code, keyLimitMessage(refusal), details);
  }
}

function keyLimitMessage(refusal: KeyLimitRefusal): string {
  switch (refusal.code) {
    case 'KEY_ORDER_TOO_LARGE':
      return `This API key places orders of at most ${refusal.limitCents} cents (this one is ${refusal.orderCents})`;
    case 'KEY_OPEN_ORDERS_LIMIT':
      return `This API key may have at most ${refusal.limit} orders resting (it has ${refusal.open})`;
    case 'KEY_POSITION_LIMIT':
      return `This API key may hold at most ${refusal.limitShares} shares of a side of an option (this could make ${refusal.wouldHold})`;
    case 'KEY_DAILY_LOSS_LIMIT':
      return `This API key may put at most ${refusal.limitCents} cents at risk a day (this could make ${refusal.wouldRiskCents})`;
  }
}
