import { ConflictError } from '../../platform/errors.js';

export class PositionClosedError extends ConflictError {
  constructor() {
    super(
      'POSITION_CLOSED',
      'This position is closed (no shares held, or its market is no longer open): protections cannot be set',
    );
  }
}

export class CopyFollowLimitReachedError extends ConflictError {
  constructor(limit: number) {
    super('COPY_LIMIT_REACHED', `You can copy at most ${limit} traders; stop copying one first`, { limit });
  }
}
