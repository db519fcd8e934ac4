import { ConflictError } from '../../platform/errors.js';

export class InvalidTransitionError extends ConflictError {
  constructor(action: string, status: string) {
    super('INVALID_TRANSITION', `Cannot ${action} an event that is ${status}`, { status });
  }
}

export class SlugTakenError extends ConflictError {
  constructor(slug: string) {
    super('SLUG_TAKEN', `An event with slug "${slug}" already exists`, { slug });
  }
}

export class EventNotResolvedError extends ConflictError {
  constructor() {
    super('EVENT_NOT_RESOLVED', 'This event has not been resolved yet; disputes open once it is');
  }
}

export class DisputeWindowClosedError extends ConflictError {
  constructor() {
    super('DISPUTE_WINDOW_CLOSED', 'The dispute window for this event has closed');
  }
}

export class AlreadyDisputedError extends ConflictError {
  constructor() {
    super('ALREADY_DISPUTED', 'You have already disputed this event');
  }
}

export class DisputePendingError extends ConflictError {
  constructor() {
    super('DISPUTE_PENDING', 'A dispute of this event is pending; decide it before settling');
  }
}

export class DisputeAlreadyDecidedError extends ConflictError {
  constructor() {
    super('DISPUTE_ALREADY_DECIDED', 'This dispute has already been decided');
  }
}
