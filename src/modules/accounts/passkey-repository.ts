import type { Queryable } from '../../platform/db/types.js';

export interface PasskeyRow {
  id: number;
  user_id: number;
  name: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
  user_handle: string;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

export interface NewPasskey {
  userId: number;
  name: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  userHandle: string;
  backedUp: boolean;
}

const COLUMNS = [
  'id',
  'user_id',
  'name',
  'credential_id',
  'public_key',
  'counter',
  'transports',
  'user_handle',
  'backed_up',
  'created_at',
  'last_used_at',
] as const;

/** The SQL of passkeys: the credentials of each account and the challenges handed out for them. */
export class PasskeyRepository {
  list(db: Queryable, userId: number): Promise<PasskeyRow[]> {
    return db.selectFrom('passkeys').select(COLUMNS).where('user_id', '=', userId).orderBy('id').execute();
  }

  findByCredentialId(db: Queryable, credentialId: string): Promise<PasskeyRow | undefined> {
    return db
      .selectFrom('passkeys')
      .select(COLUMNS)
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
  }

  async insert(db: Queryable, passkey: NewPasskey): Promise<number> {
    const row = await db
      .insertInto('passkeys')
      .values({
        user_id: passkey.userId,
        name: passkey.name,
        credential_id: passkey.credentialId,
        public_key: passkey.publicKey,
        counter: passkey.counter,
        transports: passkey.transports,
        user_handle: passkey.userHandle,
        backed_up: passkey.backedUp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Records a sign-in with the credential: its new signature counter, unless another use moved it on meanwhile. */
  async recordUse(db: Queryable, id: number, previous: number, counter: number): Promise<boolean> {
    const row = await db
      .updateTable('passkeys')
      .set({ counter, last_used_at: new Date() })
      .where('id', '=', id)
      .where('counter', '=', previous)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async remove(db: Queryable, userId: number, id: number): Promise<boolean> {
    const row = await db
      .deleteFrom('passkeys')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertChallenge(
    db: Queryable,
    challenge: {
      userId: number | null;
      purpose: 'register' | 'authenticate';
      value: string;
      userHandle?: string;
      expiresAt: Date;
    },
  ): Promise<void> {
    await db.deleteFrom('passkey_challenges').where('expires_at', '<', new Date()).execute();
    await db
      .insertInto('passkey_challenges')
      .values({
        user_id: challenge.userId,
        purpose: challenge.purpose,
        challenge: challenge.value,
        user_handle: challenge.userHandle ?? null,
        expires_at: challenge.expiresAt,
      })
      .execute();
  }

  /**
   * Uses up a live challenge handed out for this purpose to this user (or to nobody in particular, for a sign-in
   * without a password); the user handle it was handed out with, or undefined when it was not one.
   */
  spendChallenge(db: Queryable, value: string, purpose: 'register' | 'authenticate', userId: number) {
    return db
      .updateTable('passkey_challenges')
      .set({ used_at: new Date() })
      .where('challenge', '=', value)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .where((eb) => eb.or([eb('user_id', '=', userId), eb('user_id', 'is', null)]))
      .returning(['id', 'user_handle'])
      .executeTakeFirst();
  }
}
