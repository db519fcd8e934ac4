import { ConflictError } from '../../platform/errors.js';

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
