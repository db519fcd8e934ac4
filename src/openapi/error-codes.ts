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
  // An API key used outside its allow-list, or for what none of its scopes covers.
  403: ['FORBIDDEN', 'ACCOUNT_SUSPENDED', 'KEY_SCOPE_MISSING', 'KEY_ADDRESS_NOT_ALLOWED'],
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
/** Operations the trading status holds: maintenance refuses them, post-only mode those that could take. */
const MAINTENANCE = ['MAINTENANCE'];
const POST_ONLY_MODE = 'POST_ONLY_MODE';
/** Operations that place orders may pass the order budget as well as the request budget. */
const ORDER_BUDGET = ['RATE_LIMITED', 'ORDER_RATE_LIMITED'];
/** Changes that take every option's lock of an event (closing cancels their orders). */
const EVENT_LOCKS = ['OPTION_BUSY'];
/** A sensitive action of an account with a second factor, without one proved in the last minutes. */
const FRESH_FACTOR = 'FRESH_SECOND_FACTOR_REQUIRED';
/** An API key's risk limits refusing an order (src/exchange/key-limits.ts). */
const KEY_LIMITS = [
  'KEY_ORDER_TOO_LARGE',
  'KEY_OPEN_ORDERS_LIMIT',
  'KEY_POSITION_LIMIT',
  'KEY_DAILY_LOSS_LIMIT',
];
const COPY_TRADING_OFF = ['FEATURE_DISABLED'];
const PAYMENTS_OFF = ['FEATURE_DISABLED', 'PROVIDER_NOT_CONFIGURED'];
/** Actions an account whose address is not proven may not take while the service proves addresses. */
const EMAIL_NOT_VERIFIED = 'EMAIL_NOT_VERIFIED';
const WEAK_PASSWORD = 'WEAK_PASSWORD';
const LINK_INVALID = 'LINK_INVALID';

/** Codes particular to one operation, by operationId and status. */
const PARTICULAR: Record<string, Partial<Record<number, string[]>>> = {
  register: { 400: [WEAK_PASSWORD], 409: ['EMAIL_TAKEN', 'USERNAME_TAKEN', 'USERNAME_RESERVED'] },
  login: { 401: ['INVALID_CREDENTIALS'] },
  replayStream: { 410: ['SEQ_OUTSIDE_WINDOW'] },
  loginSecondFactor: { 401: ['INVALID_SECOND_FACTOR'] },
  startTotp: { 409: ['TOTP_ALREADY_ENABLED'] },
  confirmTotp: { 401: ['INVALID_SECOND_FACTOR'], 403: [FRESH_FACTOR], 409: ['TOTP_ALREADY_ENABLED'] },
  verifySecondFactor: { 401: ['INVALID_SECOND_FACTOR'] },
  removeTotp: { 403: [FRESH_FACTOR] },
  signInWithPasskey: { 401: ['INVALID_CREDENTIALS'] },
  registerPasskey: {
    400: ['INVALID_PASSKEY'],
    403: [FRESH_FACTOR],
    409: ['PASSKEY_EXISTS', 'TOO_MANY_PASSKEYS'],
  },
  passkeyRegistrationOptions: { 409: ['TOO_MANY_PASSKEYS'] },
  removePasskey: { 403: [FRESH_FACTOR] },
  updateApiKey: { 403: [FRESH_FACTOR] },
  createApiKey: { 403: [EMAIL_NOT_VERIFIED, FRESH_FACTOR], 409: ['TOO_MANY_API_KEYS'] },
  changePassword: { 400: [WEAK_PASSWORD], 403: [FRESH_FACTOR] },
  verifyEmail: { 400: [LINK_INVALID] },
  resendEmailVerification: { 409: ['EMAIL_ALREADY_VERIFIED'], 503: ['PROVIDER_NOT_CONFIGURED'] },
  requestPasswordReset: { 503: ['PROVIDER_NOT_CONFIGURED'] },
  resetPassword: { 400: [LINK_INVALID, WEAK_PASSWORD] },
  placeTrade: {
    409: [
      'INSUFFICIENT_SHARES',
      'NO_LIQUIDITY',
      'MARKET_CLOSED',
      'IDEMPOTENCY_MISMATCH',
      POST_ONLY_MODE,
      ...KEY_LIMITS,
    ],
    429: ORDER_BUDGET,
    503: [...ORDER_QUEUE, ...MAINTENANCE],
  },
  placeLimitOrder: {
    409: [
      'INSUFFICIENT_SHARES',
      'MARKET_CLOSED',
      'IDEMPOTENCY_MISMATCH',
      'POST_ONLY_WOULD_TAKE',
      'FOK_NOT_FILLED',
      POST_ONLY_MODE,
      ...KEY_LIMITS,
    ],
    429: ORDER_BUDGET,
    503: [...ORDER_QUEUE, ...MAINTENANCE],
  },
  placeLimitOrderBatch: {
    409: ['IDEMPOTENCY_MISMATCH', POST_ONLY_MODE, ...KEY_LIMITS],
    429: ORDER_BUDGET,
    503: [...ORDER_QUEUE, ...MAINTENANCE],
  },
  amendLimitOrder: {
    409: [
      'ORDER_NOT_OPEN',
      'INSUFFICIENT_SHARES',
      'MARKET_CLOSED',
      'IDEMPOTENCY_MISMATCH',
      'POST_ONLY_WOULD_TAKE',
      POST_ONLY_MODE,
      ...KEY_LIMITS,
    ],
    429: ORDER_BUDGET,
    503: [...ORDER_QUEUE, ...MAINTENANCE],
  },
  cancelLimitOrder: { 409: ['ORDER_NOT_OPEN'], 503: ORDER_QUEUE },
  cancelLimitOrders: { 503: ORDER_QUEUE },
  cancelAllLimitOrders: { 503: ORDER_QUEUE },
  convertShares: {
    409: ['EVENT_NOT_EXCLUSIVE', 'INSUFFICIENT_SHARES', 'MARKET_CLOSED', 'IDEMPOTENCY_MISMATCH'],
    503: [...ORDER_QUEUE, ...MAINTENANCE],
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
  adminRevokeAdmin: { 409: ['LAST_ADMIN'] },
  redeemAdminBootstrap: { 403: ['BOOTSTRAP_REFUSED'] },
  adminResolveReport: { 409: ['REPORT_NOT_OPEN', 'CANNOT_SUSPEND_ADMIN'] },
  adminApproveMarketSuggestion: { 409: ['SUGGESTION_NOT_PENDING', 'SLUG_TAKEN'] },
  adminRejectMarketSuggestion: { 409: ['SUGGESTION_NOT_PENDING'] },
  createChallenge: { 403: [EMAIL_NOT_VERIFIED], 409: ['EVENT_NOT_OPEN'] },
  acceptChallenge: { 403: [EMAIL_NOT_VERIFIED], 409: ['CHALLENGE_NOT_OPEN', 'CANNOT_ACCEPT_OWN_CHALLENGE'] },
  joinTournament: { 409: ['ALREADY_JOINED', 'TOURNAMENT_CLOSED'] },
  adminCreateTournament: { 409: ['SLUG_TAKEN'] },
  adminUpdateTournament: { 409: ['TOURNAMENT_STARTED', 'TOURNAMENT_ENDED'] },
  adminAttachNews: { 409: ['TOO_MANY_NEWS_ITEMS', 'NEWS_ITEM_EXISTS'] },
  addToWatchlist: { 409: ['WATCHLIST_FULL'] },
  createWebhook: { 403: [EMAIL_NOT_VERIFIED, FRESH_FACTOR], 409: ['WEBHOOK_LIMIT_REACHED'] },
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
