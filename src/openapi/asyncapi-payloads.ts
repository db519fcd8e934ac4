import { END_REASONS } from '../exchange/orders.js';

/**
 * The payloads the stream's messages carry (the AsyncAPI document's components.schemas), and the small schemas they
 * are built of. Ids are strings on every channel.
 */

export type Json = Record<string, unknown>;

export const id = { type: 'string', pattern: '^[1-9][0-9]{0,15}$', description: 'Numeric id as a string' };
export const int = { type: 'integer' };
const side = { type: 'string', enum: ['YES', 'NO'] };
const action = { type: 'string', enum: ['BUY', 'SELL'] };
export const seq = {
  type: 'integer',
  description:
    'The book version: rises by exactly one per committed change of the option. A delta whose seq is not the ' +
    'last seq + 1 means a gap: send `resync` for a fresh snapshot. The same on every instance, so a client that ' +
    'reconnects resumes with `lastSeq`.',
};

export const object = (required: string[], properties: Json, description?: string): Json => ({
  type: 'object',
  required,
  properties,
  ...(description ? { description } : {}),
});

export const schemas: Record<string, Json> = {
  Level: object(
    ['side', 'priceCents', 'quantity', 'orders', 'houseQuantity'],
    {
      side: {
        type: 'string',
        enum: ['bid', 'ask'],
        description: 'bid: YES bids (BUY YES, SELL NO); ask: YES asks',
      },
      priceCents: { ...int, description: 'YES price 1..99 (a NO price is 100 − it)' },
      quantity: {
        ...int,
        description: 'Resting shares, the house quote included; 0 in a delta = the level is gone',
      },
      orders: { ...int, description: 'Resting user orders (the house quote is not an order)' },
      houseQuantity: { ...int, description: 'Shares offered by the house market maker' },
    },
    'One price level of the YES ladder as it stands',
  ),
  StreamTrade: object(['id', 'yesPriceCents', 'quantity', 'takerSide', 'takerAction', 'at'], {
    id,
    yesPriceCents: int,
    quantity: int,
    takerSide: side,
    takerAction: action,
    at: { type: 'string', format: 'date-time' },
  }),
  StreamOrder: object(
    [
      'id',
      'optionId',
      'kind',
      'side',
      'action',
      'priceCents',
      'quantity',
      'filledQuantity',
      'status',
      'cancelReason',
    ],
    {
      id,
      optionId: id,
      kind: { type: 'string', enum: ['market', 'limit'] },
      side,
      action,
      priceCents: int,
      quantity: int,
      filledQuantity: int,
      status: { type: 'string', enum: ['open', 'partially_filled', 'filled', 'cancelled', 'expired'] },
      cancelReason: { type: ['string', 'null'], enum: [...END_REASONS, null] },
    },
  ),
  StreamFill: object(
    [
      'id',
      'orderId',
      'optionId',
      'side',
      'action',
      'quantity',
      'priceCents',
      'feeCents',
      'liquidity',
      'createdAt',
    ],
    {
      id,
      orderId: id,
      optionId: id,
      side,
      action,
      quantity: int,
      priceCents: { ...int, description: 'In the order’s own side' },
      feeCents: int,
      liquidity: { type: 'string', enum: ['maker', 'taker'] },
      createdAt: { type: 'string', format: 'date-time' },
    },
  ),
  StreamConversion: object(
    ['id', 'eventId', 'eventSlug', 'type', 'quantity', 'optionIds', 'cashCents', 'legs', 'createdAt'],
    {
      id,
      eventId: id,
      eventSlug: { type: 'string' },
      type: { type: 'string', enum: ['convert', 'split', 'merge'] },
      quantity: int,
      optionIds: { type: 'array', items: id, description: 'convert: the options whose NO shares were given' },
      cashCents: { ...int, description: 'Cash you received (negative: paid)' },
      legs: {
        type: 'array',
        items: object(['optionId', 'optionLabel', 'side', 'quantity', 'priceCents'], {
          optionId: id,
          optionLabel: { type: 'string' },
          side,
          quantity: { ...int, description: 'Shares you received (positive) or gave (negative)' },
          priceCents: { ...int, description: 'The price the leg is booked at in your cost basis' },
        }),
      },
      createdAt: { type: 'string', format: 'date-time' },
    },
    'One of your conversions in an exclusive event, as GET /api/conversions lists it',
  ),
  StreamNotification: object(
    ['id', 'type', 'title', 'body', 'data', 'read', 'createdAt'],
    {
      id,
      type: { type: 'string', description: 'Machine type, e.g. order.filled, market.settled, social.like' },
      title: { type: 'string' },
      body: { type: 'string' },
      data: {
        type: 'object',
        description: 'What it is about (ids, eventSlug, amounts), as in GET /api/me/notifications',
      },
      read: { type: 'boolean' },
      createdAt: { type: 'string', format: 'date-time' },
    },
    'A new item of your notification feed, as GET /api/me/notifications lists it',
  ),
};
