import { ConflictError } from '../../platform/errors.js';

export class WebhookLimitReachedError extends ConflictError {
  constructor(limit: number) {
    super('WEBHOOK_LIMIT_REACHED', `You can have at most ${limit} webhook subscriptions; delete one first`, {
      limit,
    });
  }
}
