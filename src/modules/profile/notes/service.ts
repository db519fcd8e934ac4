import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { NotFoundError, ValidationError } from '../../../platform/errors.js';
import { decodeCursor, iso, type PageOf, toPage } from '../../../platform/http.js';
import type { ProfileEventsRepository } from '../events-repository.js';
import type { NoteFilter, NoteRow, NotesRepository } from './repository.js';

export interface NoteView {
  id: string;
  text: string;
  tradeId: string | null;
  eventId: string;
  eventSlug: string;
  eventTitle: string;
  createdAt: string;
}

/** A private trading journal: notes on one of your trades or on a market, visible only to you. */
export class NotesService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly notes: NotesRepository,
    private readonly events: ProfileEventsRepository,
  ) {}

  async create(
    userId: number,
    input: { text: string; tradeId?: string | undefined; eventSlug?: string | undefined },
  ): Promise<NoteView> {
    const text = input.text.trim();
    if (text === '') {
      throw new ValidationError('A note needs some text', [
        { field: 'body.text', message: 'must not be blank' },
      ]);
    }
    if ((input.tradeId === undefined) === (input.eventSlug === undefined)) {
      const message = 'name exactly one of tradeId or eventSlug';
      throw new ValidationError(`A note must ${message}`, [
        { field: 'body.tradeId', message },
        { field: 'body.eventSlug', message },
      ]);
    }
    return this.db.transaction().execute(async (trx) => {
      let target: { eventId: number; tradeId: number | null };
      if (input.tradeId !== undefined) {
        const trade = await this.notes.findOwnTrade(trx, userId, Number(input.tradeId));
        if (!trade) throw new NotFoundError('Trade');
        target = { eventId: trade.event_id, tradeId: trade.id };
      } else {
        const event = await this.events.findBySlug(trx, input.eventSlug ?? '');
        if (!event) throw new NotFoundError('Event');
        target = { eventId: event.id, tradeId: null };
      }
      return toNote(await this.notes.insert(trx, { userId, text, ...target }));
    });
  }

  async list(
    userId: number,
    query: {
      limit: number;
      cursor?: string | undefined;
      eventSlug?: string | undefined;
      tradeId?: string | undefined;
    },
  ): Promise<PageOf<NoteView>> {
    const cursor = decodeCursor(query.cursor, 1);
    const filter: NoteFilter = {};
    if (query.eventSlug !== undefined) {
      const event = await this.events.findBySlug(this.db, query.eventSlug);
      if (!event) throw new NotFoundError('Event');
      filter.eventId = event.id;
    }
    if (query.tradeId !== undefined) {
      const trade = await this.notes.findOwnTrade(this.db, userId, Number(query.tradeId));
      if (!trade) throw new NotFoundError('Trade');
      filter.tradeId = trade.id;
    }
    const rows = await this.notes.list(this.db, userId, filter, {
      limit: query.limit,
      beforeId: cursor ? Number(cursor[0]) : null,
    });
    return toPage(rows, query.limit, toNote, (row) => [row.id]);
  }

  async remove(userId: number, id: number): Promise<void> {
    if (!(await this.notes.remove(this.db, userId, id))) throw new NotFoundError('Note');
  }
}

function toNote(row: NoteRow): NoteView {
  return {
    id: String(row.id),
    text: row.text,
    tradeId: row.trade_id === null ? null : String(row.trade_id),
    eventId: String(row.event_id),
    eventSlug: row.slug,
    eventTitle: row.title,
    createdAt: iso(row.created_at),
  };
}
