import { type Kysely, sql } from 'kysely';
import { booleanArray, numberArray } from '../../platform/db/arrays.js';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

/** One book change as the window keeps it: its notice as JSON, and whether it has fills. */
export interface WindowEntry {
  optionId: number;
  seq: number;
  traded: boolean;
  message: string;
}

/** What the window holds of one option after a seq, at one moment. */
export interface WindowRead {
  /** The option's book version, or null when there is no such option. */
  version: number | null;
  /** The kept changes after the seq asked for, oldest first, as far as the limit. */
  entries: { seq: number; traded: boolean; message: string; createdAt: Date }[];
}

export class StreamRepository {
  /** The status of each of these events (drafts included: the caller decides what is public). */
  eventStatuses(db: Kysely<DB>, eventIds: number[]) {
    return db.selectFrom('events').select(['id', 'status']).where('id', 'in', eventIds).execute();
  }

  /**
   * Keeps the book changes in the window and queues their notices, in one statement: the window's row and the
   * notice commit together or not at all. A notice too big for NOTIFY goes as "resynchronise"; the window keeps it
   * whole. Messages go as one text joined by line breaks (JSON as `JSON.stringify` writes it never has one).
   */
  async announceBookChanges(db: Queryable, channel: string, entries: WindowEntry[], maxNotice: number) {
    if (entries.length === 0) return;
    await sql`WITH v AS (
        SELECT * FROM unnest(${numberArray(entries.map((e) => e.optionId))}::bigint[],
          ${numberArray(entries.map((e) => e.seq))}::bigint[], ${booleanArray(entries.map((e) => e.traded))}::boolean[],
          string_to_array(${entries.map((e) => e.message).join('\n')}::text, E'\\n'))
          WITH ORDINALITY AS v(option_id, seq, traded, message, n)
      ), kept AS (
        INSERT INTO stream_book_window (option_id, seq, traded, message)
        SELECT option_id, seq, traded, message FROM v
      )
      SELECT pg_notify(${channel}, CASE WHEN octet_length(v.message) <= ${maxNotice}::int THEN v.message
        ELSE json_build_object('optionId', v.option_id, 'seq', v.seq, 'resync', true)::text END)
      FROM v ORDER BY v.n`.execute(db);
  }

  /** The option's version and its kept changes after `afterSeq`, read in one snapshot. */
  async windowAfter(db: Queryable, optionId: number, afterSeq: number, limit: number): Promise<WindowRead> {
    const { rows } = await sql<{ version: string | null; entries: WindowRead['entries'] | null }>`
      SELECT (SELECT book_version FROM options WHERE id = ${optionId}) AS version,
        (SELECT json_agg(json_build_object('seq', w.seq, 'traded', w.traded, 'message', w.message,
            'createdAt', w.created_at) ORDER BY w.seq)
          FROM (SELECT * FROM stream_book_window WHERE option_id = ${optionId} AND seq > ${afterSeq}
            ORDER BY seq LIMIT ${limit}) w) AS entries`.execute(db);
    const row = rows[0];
    return {
      version: row?.version == null ? null : Number(row.version),
      entries: (row?.entries ?? []).map((e) => ({
        ...e,
        seq: Number(e.seq),
        createdAt: new Date(e.createdAt),
      })),
    };
  }

  /** Forgets the changes beyond each option's last `maxMessages` and those older than `maxAgeSeconds`. */
  async pruneWindow(db: Queryable, maxMessages: number, maxAgeSeconds: number): Promise<number> {
    const old = await sql`DELETE FROM stream_book_window
      WHERE created_at < now() - make_interval(secs => ${maxAgeSeconds})`.execute(db);
    const beyond = await sql`DELETE FROM stream_book_window w USING options o
      WHERE o.id = w.option_id AND w.seq <= o.book_version - ${maxMessages}`.execute(db);
    return Number(old.numAffectedRows ?? 0) + Number(beyond.numAffectedRows ?? 0);
  }

  /** Queues a notification; PostgreSQL delivers it to every listener when the transaction commits. */
  async notify(db: Queryable, channel: string, payload: string): Promise<void> {
    await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db);
  }

  /**
   * Queues several notifications on one channel in one statement, in order. Payloads without a line break (JSON as
   * `JSON.stringify` writes it never has one) go as one text joined by line breaks and split by PostgreSQL: as an
   * array's elements, every `"` of a JSON payload would be escaped, a copy of each payload made to be sent.
   */
  async notifyMany(db: Queryable, channel: string, payloads: string[]): Promise<void> {
    if (payloads.length === 0) return;
    if (payloads.length === 1) return this.notify(db, channel, payloads[0] as string);
    // One parameter, not a list: the same text whatever the count, so it is prepared once.
    if (!payloads.some((payload) => payload.includes('\n'))) {
      await sql`SELECT pg_notify(${channel}, v.payload)
        FROM unnest(string_to_array(${payloads.join('\n')}::text, E'\\n')) AS v(payload)`.execute(db);
      return;
    }
    await sql`SELECT pg_notify(${channel}, v.payload) FROM unnest(${payloads}::text[]) AS v(payload)`.execute(
      db,
    );
  }
}
