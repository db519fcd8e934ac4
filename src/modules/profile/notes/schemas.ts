import { Type } from '@sinclair/typebox';
import { IdString, PageQuery } from '../../../platform/http.js';
import { UserText } from '../text.js';

export const NOTE_MAX_LENGTH = 2000;

const EventSlug = Type.String({ minLength: 1, maxLength: 200 });

export const Note = Type.Object({
  id: IdString,
  text: Type.String(),
  tradeId: Type.Union([IdString, Type.Null()], { description: 'The trade the note is about, if any' }),
  eventId: IdString,
  eventSlug: Type.String(),
  eventTitle: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreateNoteBody = Type.Object(
  {
    text: UserText({
      minLength: 1,
      maxLength: NOTE_MAX_LENGTH,
      description: `1..${NOTE_MAX_LENGTH} characters`,
    }),
    tradeId: Type.Optional(IdString),
    eventSlug: Type.Optional(EventSlug),
  },
  { additionalProperties: false },
);

export const NotesQuery = Type.Object({
  ...PageQuery,
  eventSlug: Type.Optional(EventSlug),
  tradeId: Type.Optional(IdString),
});
