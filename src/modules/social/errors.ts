import { AppError, ConflictError } from '../../platform/errors.js';

export class AlreadyReportedError extends ConflictError {
  constructor() {
    super('ALREADY_REPORTED', 'You already have an open report on this');
  }
}

export class ReportNotOpenError extends ConflictError {
  constructor() {
    super('REPORT_NOT_OPEN', 'This report has already been resolved');
  }
}

export class CannotSuspendAdminError extends ConflictError {
  constructor() {
    super('CANNOT_SUSPEND_ADMIN', 'Admin accounts cannot be suspended through a report');
  }
}

export class SuggestionNotPendingError extends ConflictError {
  constructor() {
    super('SUGGESTION_NOT_PENDING', 'This suggestion has already been reviewed');
  }
}

export class TooManyPendingSuggestionsError extends ConflictError {
  constructor(max: number) {
    super('TOO_MANY_PENDING_SUGGESTIONS', `At most ${max} suggestions per user may wait for review`);
  }
}

/** Someone else's post or comment: it exists and is public, so 404 would be a lie. */
export class NotYourContentError extends AppError {
  constructor(what: string) {
    super(403, 'FORBIDDEN', `Only its author can delete this ${what}`);
  }
}
