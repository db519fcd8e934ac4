import { Type } from '@sinclair/typebox';
import { IdString } from '../../../platform/http.js';

export const WATCHLIST_MAX_ITEMS = 500;

export const WatchlistItem = Type.Object({
  eventId: IdString,
  eventSlug: Type.String(),
  title: Type.String(),
  status: Type.String({ description: 'draft, open, closed, resolved or settled' }),
  closesAt: Type.String({ format: 'date-time' }),
  addedAt: Type.String({ format: 'date-time' }),
});

export const AddToWatchlistBody = Type.Object(
  {
    eventSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    eventId: Type.Optional(IdString),
  },
  { additionalProperties: false, description: 'Exactly one of eventSlug or eventId' },
);

export const WatchlistParams = Type.Object({
  event: Type.String({ minLength: 1, maxLength: 200, description: 'The event id (digits) or its slug' }),
});
