import { Type } from '@sinclair/typebox';
import { IdString } from '../../../platform/http.js';

const Side = Type.Union([Type.Literal('YES'), Type.Literal('NO')]);

export const Settlement = Type.Object({
  id: IdString,
  eventSlug: Type.String(),
  eventTitle: Type.String(),
  optionId: IdString,
  optionLabel: Type.String(),
  side: Side,
  outcome: Type.Union([Type.Literal('YES'), Type.Literal('NO'), Type.Literal('VOID')], {
    description: 'How the option resolved',
  }),
  quantity: Type.Integer({ description: 'Shares held when the market settled' }),
  payoutCents: Type.Integer({
    description: 'What they paid: 100 a winning share, 0 a losing one, 50 when void',
  }),
  pnlCents: Type.Integer({ description: 'The payout less what the shares had cost' }),
  settledAt: Type.String({ format: 'date-time' }),
});

export const SettlementsQuery = Type.Object({
  eventSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this market’s' })),
});
