import { type Kysely, sql } from 'kysely';
import type { DB } from './db/schema.js';
import type { Tx } from './db/types.js';
import { type SecretBox, SecretKeyError, sealedKeyId } from './secrets.js';

const RESEAL_BATCH = 200;

/** A text column of secrets the service reads back, each bound to the account in the row's `user_id`. */
export interface SealedColumnSpec {
  table: keyof DB & string;
  column: 'secret';
  /** What the secrets are, for messages: "webhook signing secrets". */
  what: string;
}

export interface SecretsStatus {
  currentKeyId: string;
  /** Stored secrets by the key that sealed them (`keyId` null: plain, not sealed yet), and whether it is at hand. */
  byKey: { keyId: string | null; count: number; known: boolean }[];
}

export interface Resealed {
  sealed: number;
  resealed: number;
}

/**
 * One column of secrets at rest: sealed with the keyring's current key when written, opened to be used, and
 * resealed at start (or by `npm run admin -- secrets reseal`) when stored plain or under an older key. A sealed
 * value is bound to its owner's id, so that it opens in no other account's row.
 */
export class SealedColumn {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly box: SecretBox,
    readonly spec: SealedColumnSpec,
  ) {}

  /** The column's name, `table.column`. */
  get name(): string {
    return `${this.spec.table}.${this.spec.column}`;
  }

  seal(userId: number, secret: string): string {
    return this.box.seal(secret, this.contextOf(userId));
  }

  /** The secret; one stored before sealing is used as it is (until the next start seals it). */
  open(userId: number, stored: string): string {
    return sealedKeyId(stored) === null ? stored : this.box.open(stored, this.contextOf(userId));
  }

  async status(): Promise<SecretsStatus> {
    const known = new Set(this.box.keyIds);
    const { rows } = await sql<{ key_id: string | null; count: number }>`
      SELECT CASE WHEN ${this.column()} LIKE 'enc:v1:%' THEN split_part(${this.column()}, ':', 3) END AS key_id,
             count(*)::int AS count
      FROM ${sql.table(this.spec.table)} GROUP BY 1 ORDER BY 1`.execute(this.db);
    return {
      currentKeyId: this.box.currentKeyId,
      byKey: rows.map((r) => ({
        keyId: r.key_id,
        count: r.count,
        known: r.key_id === null || known.has(r.key_id),
      })),
    };
  }

  /** What of the column is sealed with keys the keyring lacks, in words, or null when nothing is. */
  async missingKeys(): Promise<string | null> {
    const missing = (await this.status()).byKey.filter((k) => !k.known);
    if (missing.length === 0) return null;
    const list = missing.map((k) => `${k.count} with key ${k.keyId}`).join(', ');
    return `${this.spec.what} are sealed with keys the service does not have (${list})`;
  }

  /**
   * Seals every secret stored plain and reseals those of older keys with the current one. Refuses, before
   * changing anything, when a secret was sealed with a key the keyring no longer holds.
   */
  async sealStored(): Promise<Resealed> {
    const missing = await this.missingKeys();
    if (missing) throw missingKeysError([missing]);
    const done = { sealed: 0, resealed: 0 };
    for (;;) {
      const batch = await this.db.transaction().execute(async (trx) => {
        const rows = await this.notSealedWithCurrent(trx);
        for (const row of rows) {
          const secret = this.seal(row.user_id, this.open(row.user_id, row.secret));
          await sql`UPDATE ${sql.table(this.spec.table)} SET ${this.column()} = ${secret}
                    WHERE id = ${row.id}`.execute(trx);
        }
        return rows;
      });
      const plain = batch.filter((row) => sealedKeyId(row.secret) === null).length;
      done.sealed += plain;
      done.resealed += batch.length - plain;
      if (batch.length < RESEAL_BATCH) return done;
    }
  }

  /** A batch of secrets not sealed with the current key, locked for resealing (others' batches skipped). */
  private async notSealedWithCurrent(trx: Tx) {
    const { rows } = await sql<{ id: number; user_id: number; secret: string }>`
      SELECT id, user_id, ${this.column()} AS secret FROM ${sql.table(this.spec.table)}
      WHERE ${this.column()} NOT LIKE ${`enc:v1:${this.box.currentKeyId}:%`}
      ORDER BY id LIMIT ${RESEAL_BATCH}
      FOR UPDATE SKIP LOCKED`.execute(trx);
    return rows.map((row) => ({ ...row, id: Number(row.id), user_id: Number(row.user_id) }));
  }

  private column() {
    return sql.ref(this.spec.column);
  }

  private contextOf(userId: number): string {
    return `${this.name}:user:${userId}`;
  }
}

function missingKeysError(parts: string[]): SecretKeyError {
  return new SecretKeyError(
    `${parts.join('; ')}: put those keys back in SECRETS_KEY (after the current one) or restore DATA_DIR/secrets.key`,
  );
}

/**
 * Every column of sealed secrets: where they stand by key, and all of them sealed with the current key, refused
 * before anything changes when any is sealed with a key the keyring lacks.
 */
export class SecretsAtRest {
  constructor(
    private readonly box: SecretBox,
    private readonly columns: SealedColumn[],
  ) {}

  async status() {
    const columns: Record<string, SecretsStatus['byKey']> = {};
    const merged = new Map<string | null, SecretsStatus['byKey'][number]>();
    for (const column of this.columns) {
      const { byKey } = await column.status();
      columns[column.name] = byKey;
      for (const entry of byKey) {
        const sum = merged.get(entry.keyId);
        merged.set(entry.keyId, sum ? { ...sum, count: sum.count + entry.count } : { ...entry });
      }
    }
    // As PostgreSQL orders them: by key id, plain (null) last.
    const byKey = [...merged.values()].sort((a, b) =>
      a.keyId === b.keyId ? 0 : a.keyId === null ? 1 : b.keyId === null ? -1 : a.keyId < b.keyId ? -1 : 1,
    );
    return { currentKeyId: this.box.currentKeyId, byKey, columns };
  }

  async sealStored(): Promise<Resealed & { columns: Record<string, Resealed> }> {
    const missing: string[] = [];
    for (const column of this.columns) {
      const words = await column.missingKeys();
      if (words) missing.push(words);
    }
    if (missing.length > 0) throw missingKeysError(missing);
    const done = { sealed: 0, resealed: 0, columns: {} as Record<string, Resealed> };
    for (const column of this.columns) {
      const one = await column.sealStored();
      done.columns[column.name] = one;
      done.sealed += one.sealed;
      done.resealed += one.resealed;
    }
    return done;
  }
}
