/**
 * The event types a webhook subscription can receive. Every type is also a feed item in human words; feed items of
 * any other kind (badges, follows, comments, challenges...) are delivered as `notification.created`.
 */
export const WEBHOOK_EVENT_TYPES = [
  'order.filled',
  'order.cancelled',
  'order.expired',
  'trade.executed',
  'conversion.completed',
  'position.protection_triggered',
  'market.resolved',
  'market.settled',
  'notification.created',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'order.filled':
    'One of your orders filled, wholly or in part (as taker or maker): one event per order per match, with this match’s quantity and average price.',
  'order.cancelled':
    'One of your open orders was cancelled: by you, by self-trade prevention or because its market closed (`reason`).',
  'order.expired': 'One of your limit orders reached its expiry with quantity unfilled.',
  'trade.executed': 'One execution of one of your orders (the same record as GET /api/trades).',
  'conversion.completed':
    'A conversion of yours in an exclusive event (convert, split or merge) was carried out (the same record as GET /api/conversions).',
  'position.protection_triggered':
    'A stop-loss or take-profit on one of your positions fired and the position was sold at market.',
  'market.resolved': 'A market you hold a position in was resolved (the outcome of your option).',
  'market.settled': 'A market you held a position in settled: what you were paid and your profit or loss.',
  'notification.created': 'Any other feed item (badges, follows, comments, challenges, copy trading...).',
};

/** Example bodies for the documentation; the shapes are the ones the service sends. */
export const WEBHOOK_EXAMPLES: Record<WebhookEventType, Record<string, unknown>> = {
  'order.filled': {
    order: {
      id: '812',
      optionId: '31',
      eventSlug: 'india-vs-australia',
      optionLabel: 'India',
      kind: 'limit',
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      priceCents: 55,
      filledQuantity: 10,
      remainingQuantity: 0,
      status: 'filled',
      cancelReason: null,
      clientOrderId: null,
      createdAt: '2025-03-09T10:15:02.120Z',
    },
    liquidity: 'taker',
    filledQuantity: 10,
    notionalCents: 526,
    averagePriceCents: 53,
    feeCents: 0,
  },
  'order.cancelled': {
    order: {
      id: '790',
      optionId: '31',
      eventSlug: 'india-vs-australia',
      optionLabel: 'India',
      kind: 'limit',
      side: 'NO',
      action: 'BUY',
      quantity: 20,
      priceCents: 45,
      filledQuantity: 5,
      remainingQuantity: 15,
      status: 'cancelled',
      cancelReason: 'market_closed',
      clientOrderId: null,
      createdAt: '2025-03-09T09:40:11.512Z',
    },
    reason: 'market_closed',
  },
  'order.expired': {
    order: {
      id: '775',
      optionId: '31',
      eventSlug: 'india-vs-australia',
      optionLabel: 'India',
      kind: 'limit',
      side: 'YES',
      action: 'SELL',
      quantity: 8,
      priceCents: 70,
      filledQuantity: 0,
      remainingQuantity: 8,
      status: 'expired',
      cancelReason: 'expired',
      clientOrderId: null,
      createdAt: '2025-03-08T10:00:00.000Z',
    },
    reason: 'expired',
  },
  'trade.executed': {
    id: '5120',
    orderId: '812',
    optionId: '31',
    eventSlug: 'india-vs-australia',
    optionLabel: 'India',
    side: 'YES',
    action: 'BUY',
    quantity: 6,
    priceCents: 52,
    feeCents: 0,
    liquidity: 'taker',
    orderKind: 'limit',
    createdAt: '2025-03-09T10:15:02.120Z',
  },
  'conversion.completed': {
    id: '77',
    eventId: '12',
    eventSlug: 'who-wins-the-cup',
    type: 'convert',
    quantity: 10,
    optionIds: ['31'],
    cashCents: 0,
    legs: [
      { optionId: '31', optionLabel: 'India', side: 'NO', quantity: -10, priceCents: 55 },
      { optionId: '32', optionLabel: 'Australia', side: 'YES', quantity: 10, priceCents: 35 },
      { optionId: '33', optionLabel: 'Any other team', side: 'YES', quantity: 10, priceCents: 20 },
    ],
    createdAt: '2025-03-09T10:20:41.003Z',
  },
  'position.protection_triggered': {
    positionId: '144',
    optionId: '31',
    eventSlug: 'india-vs-australia',
    optionLabel: 'India',
    side: 'YES',
    trigger: 'stop_loss',
    thresholdProbBps: 4000,
    triggerPriceCents: 38,
    soldQuantity: 25,
    averagePriceCents: 37,
    orderId: '815',
    outcome: 'sold',
  },
  'market.resolved': {
    eventId: '12',
    eventSlug: 'india-vs-australia',
    optionId: '31',
    outcome: 'YES',
    title: 'India vs Australia: resolved',
    notificationId: '9000',
    body: '"India" resolved YES. Payouts follow after the 24-hour dispute window.',
  },
  'market.settled': {
    eventId: '12',
    eventSlug: 'india-vs-australia',
    payoutCents: 2500,
    pnlCents: 1200,
    title: 'India vs Australia: settled',
    notificationId: '9002',
    body: 'You were paid 25.00 credits (profit 12.00 credits).',
  },
  'notification.created': {
    id: '9001',
    type: 'badge.earned',
    title: 'Badge earned: First trade',
    body: 'You made your first trade.',
    data: { badge: 'first-trade' },
    createdAt: '2025-03-09T10:15:02.120Z',
  },
};

/** The verification recipe, shown in the API docs and in docs/api.md. */
export const VERIFY_SNIPPET = `import { createHmac, timingSafeEqual } from 'node:crypto';

// secret: the "whsec_..." value shown when you created the subscription; rawBody: the request body as received.
export function verifyWebhook(secret, headers, rawBody) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false; // refuse replays
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(\`\${id}.\${timestamp}.\${rawBody}\`).digest();
  return headers['webhook-signature'].split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}`;
