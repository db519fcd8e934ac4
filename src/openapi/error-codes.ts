/**
 * The machine codes each operation can answer with, per status, so that a client can switch over them: the codes any
 * operation may meet, and those particular to an operation. The contract test checks every error a test receives
 * against these lists, so a code missing here fails the test that met it.
 */

/** The codes of each status wherever it is declared. */
const COMMON: Record<number, string[]> = {
  400: ['VALIDATION_FAILED', 'BAD_REQUEST'],
  401: ['UNAUTHENTICATED'],
  402: ['INSUFFICIENT_FUNDS'],
  403: ['FORBIDDEN', 'ACCOUNT_SUSPENDED'],
  404: ['NOT_FOUND'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  429: ['RATE_LIMITED'],
  503: [
    'DATABASE_UNAVAILABLE',
    'DATABASE_READ_ONLY',
    'DATABASE_DISK_FULL',
    'DATABASE_OVERLOADED',
    'SHUTTING_DOWN',
  ],
};

/** A body that is not the JSON it claims to be; only requests that may carry one. */
const MALFORMED_BODY = 'MALFORMED_BODY';

const ORDER_QUEUE = ['OPTION_BUSY', 'ORDER_QUEUE_FULL'];
/** Operations that place orders may pass the order budget as well as the request budget. */
const ORDER_BUDGET = ['RATE_LIMITED', 'ORDER_RATE_LIMITED'];
/** Changes that take every option's lock of an event (closing cancels their orders). */
const EVENT_LOCKS = ['OPTION_BUSY'];
const COPY_TRADING_OFF = ['FEATURE_DISABLED'];
const PAYMENTS_OFF = ['FEATURE_DISABLED', 'PROVIDER_NOT_CONFIGURED'];

/** Codes particular to one operation, by operationId and status. */
const PARTICULAR: Record<string, Partial<Record<number, string[]>>> = {
  register: { 409: ['EMAIL_TAKEN', 'USERNAME_TAKEN'] },
  login: { 401: ['INVALID_CREDENTIALS'] },
  createApiKey: { 409: ['TOO_MANY_API_KEYS'] },
  placeTrade: {
    409: ['INSUFFICIENT_SHARES', 'NO_LIQUIDITY', 'MARKET_CLOSED', 'IDEMPOTENCY_MISMATCH'],
    429: ORDER_BUDGET,
    503: ORDER_QUEUE,
  },
  placeLimitOrder: {
    409: [
      'INSUFFICIENT_SHARES',
      'MARKET_CLOSED',
      'IDEMPOTENCY_MISMATCH',
      'POST_ONLY_WOULD_TAKE',
      'FOK_NOT_FILLED',
    ],
    429: ORDER_BUDGET,
    503: ORDER_QUEUE,
  },
  placeLimitOrderBatch: { 409: ['IDEMPOTENCY_MISMATCH'], 429: ORDER_BUDGET },
  amendLimitOrder: {
    409: [
      'ORDER_NOT_OPEN',
      'INSUFFICIENT_SHARES',
      'MARKET_CLOSED',
      'IDEMPOTENCY_MISMATCH',
      'POST_ONLY_WOULD_TAKE',
    ],
    429: ORDER_BUDGET,
    503: ORDER_QUEUE,
  },
  cancelLimitOrder: { 409: ['ORDER_NOT_OPEN'], 503: ORDER_QUEUE },
  convertShares: {
    409: ['EVENT_NOT_EXCLUSIVE', 'INSUFFICIENT_SHARES', 'MARKET_CLOSED', 'IDEMPOTENCY_MISMATCH'],
    503: ORDER_QUEUE,
  },
  disputeEvent: { 409: ['EVENT_NOT_RESOLVED', 'DISPUTE_WINDOW_CLOSED', 'ALREADY_DISPUTED'] },
  adminCreateEvent: { 409: ['SLUG_TAKEN'] },
  adminUpdateEvent: { 409: ['INVALID_TRANSITION'] },
  adminUpdateDraftOption: { 409: ['INVALID_TRANSITION'] },
  adminOpenEvent: { 409: ['INVALID_TRANSITION'] },
  adminCloseEvent: { 409: ['INVALID_TRANSITION'], 503: EVENT_LOCKS },
  adminResolveEvent: { 409: ['INVALID_TRANSITION'], 503: EVENT_LOCKS },
  adminSettleEvent: { 409: ['INVALID_TRANSITION', 'DISPUTE_PENDING'], 503: EVENT_LOCKS },
  adminPreviewSettlement: { 409: ['INVALID_TRANSITION'] },
  adminDecideDispute: { 409: ['DISPUTE_ALREADY_DECIDED', 'INVALID_TRANSITION'] },
  createReport: { 409: ['ALREADY_REPORTED'] },
  createMarketSuggestion: { 409: ['TOO_MANY_PENDING_SUGGESTIONS'] },
  adminResolveReport: { 409: ['REPORT_NOT_OPEN', 'CANNOT_SUSPEND_ADMIN'] },
  adminApproveMarketSuggestion: { 409: ['SUGGESTION_NOT_PENDING', 'SLUG_TAKEN'] },
  adminRejectMarketSuggestion: { 409: ['SUGGESTION_NOT_PENDING'] },
  createChallenge: { 409: ['EVENT_NOT_OPEN'] },
  acceptChallenge: { 409: ['CHALLENGE_NOT_OPEN', 'CANNOT_ACCEPT_OWN_CHALLENGE'] },
  joinTournament: { 409: ['ALREADY_JOINED', 'TOURNAMENT_CLOSED'] },
  adminCreateTournament: { 409: ['SLUG_TAKEN'] },
  adminUpdateTournament: { 409: ['TOURNAMENT_STARTED', 'TOURNAMENT_ENDED'] },
  adminAttachNews: { 409: ['TOO_MANY_NEWS_ITEMS', 'NEWS_ITEM_EXISTS'] },
  addToWatchlist: { 409: ['WATCHLIST_FULL'] },
  createWebhook: { 409: ['WEBHOOK_LIMIT_REACHED'] },
  setPositionProtections: { 409: ['POSITION_CLOSED'], 503: ORDER_QUEUE },
  listCopyLeaders: { 503: COPY_TRADING_OFF },
  followCopyLeader: { 409: ['COPY_LIMIT_REACHED'], 503: COPY_TRADING_OFF },
  unfollowCopyLeader: { 503: COPY_TRADING_OFF },
  listCopyMirrors: { 503: COPY_TRADING_OFF },
  getCricketLive: { 503: ['PROVIDER_NOT_CONFIGURED'] },
  createDeposit: { 503: PAYMENTS_OFF },
  createWithdrawal: { 503: PAYMENTS_OFF },
};

/** The codes an operation answers with this status. */
export function errorCodes(operationId: string, method: string, status: number): string[] {
  const codes = [...(COMMON[status] ?? []), ...(PARTICULAR[operationId]?.[status] ?? [])];
  if (status === 400 && method !== 'get' && method !== 'head') codes.push(MALFORMED_BODY);
  return [...new Set(codes)];
}
