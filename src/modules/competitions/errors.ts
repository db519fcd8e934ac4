import { AppError, ConflictError } from '../../platform/errors.js';

export class ChallengeNotOpenError extends ConflictError {
  constructor(reason: string) {
    super('CHALLENGE_NOT_OPEN', `This challenge cannot be accepted: ${reason}`);
  }
}

export class OwnChallengeError extends ConflictError {
  constructor() {
    super('CANNOT_ACCEPT_OWN_CHALLENGE', 'You cannot accept your own challenge');
  }
}

export class ChallengeForSomeoneElseError extends AppError {
  constructor() {
    super(403, 'FORBIDDEN', 'This challenge was sent to another user');
  }
}

export class EventNotOpenError extends ConflictError {
  constructor() {
    super('EVENT_NOT_OPEN', 'This market is not open for trading');
  }
}

export class StakeUnaffordableError extends AppError {
  constructor(neededCents: number, availableCents: number) {
    super(402, 'INSUFFICIENT_FUNDS', 'Not enough cash for this stake', { neededCents, availableCents });
  }
}

export class AlreadyJoinedError extends ConflictError {
  constructor() {
    super('ALREADY_JOINED', 'You have already joined this tournament');
  }
}

export class TournamentClosedError extends ConflictError {
  constructor() {
    super('TOURNAMENT_CLOSED', 'Entries to this tournament are closed');
  }
}

export class TournamentSlugTakenError extends ConflictError {
  constructor(slug: string) {
    super('SLUG_TAKEN', `A tournament with the slug "${slug}" already exists`);
  }
}

export class TournamentStartedError extends ConflictError {
  constructor(fields: string[]) {
    super(
      'TOURNAMENT_STARTED',
      `This tournament has started: ${fields.join(', ')} can no longer change (the end can move and prizes can rise)`,
    );
  }
}

export class TournamentEndedError extends ConflictError {
  constructor() {
    super('TOURNAMENT_ENDED', 'This tournament has ended and can no longer be edited');
  }
}
