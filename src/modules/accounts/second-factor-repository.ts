import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

export interface TotpRow {
  id: number;
  secret: string;
  last_time_step: number | null;
  confirmed_at: Date | null;
  created_at: Date;
}

export type FactorKind = 'totp' | 'passkey';

/** The SQL of second factors: TOTP secrets, recovery codes, login challenges and sessions' proofs. */
export class SecondFactorRepository {
  findTotp(db: Queryable, userId: number): Promise<TotpRow | undefined> {
    return db
      .selectFrom('second_factors')
      .select(['id', 'secret', 'last_time_step', 'confirmed_at', 'created_at'])
      .where('user_id', '=', userId)
      .where('kind', '=', 'totp')
      .executeTakeFirst();
  }

  async hasConfirmedFactor(db: Queryable, userId: number): Promise<boolean> {
    return (await this.confirmedFactors(db, userId)).length > 0;
  }

  /** The kinds of factor in force for the account: a confirmed app, passkeys. */
  async confirmedFactors(db: Queryable, userId: number): Promise<FactorKind[]> {
    const row = await db
      .selectNoFrom((eb) => [
        eb
          .exists(
            eb
              .selectFrom('second_factors')
              .select('id')
              .where('user_id', '=', userId)
              .where('confirmed_at', 'is not', null),
          )
          .as('totp'),
        eb.exists(eb.selectFrom('passkeys').select('id').where('user_id', '=', userId)).as('passkey'),
      ])
      .executeTakeFirstOrThrow();
    return (['totp', 'passkey'] as const).filter((kind) => row[kind]);
  }

  /** A new secret waiting for its first code, in place of one that never got it. */
  async startTotp(db: Queryable, userId: number, secret: string): Promise<void> {
    await db.deleteFrom('second_factors').where('user_id', '=', userId).where('kind', '=', 'totp').execute();
    await db.insertInto('second_factors').values({ user_id: userId, kind: 'totp', secret }).execute();
  }

  /**
   * Records a code accepted at `timeStep` (confirming the secret if it was not yet), unless one at that step or
   * later was accepted meanwhile; whether it was recorded.
   */
  async acceptTimeStep(db: Queryable, factorId: number, timeStep: number): Promise<boolean> {
    const row = await db
      .updateTable('second_factors')
      .set({ last_time_step: timeStep, confirmed_at: sql`coalesce(confirmed_at, now())` })
      .where('id', '=', factorId)
      .where((eb) => eb.or([eb('last_time_step', 'is', null), eb('last_time_step', '<', timeStep)]))
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async deleteTotp(db: Queryable, userId: number): Promise<boolean> {
    const rows = await db
      .deleteFrom('second_factors')
      .where('user_id', '=', userId)
      .where('kind', '=', 'totp')
      .returning('id')
      .execute();
    return rows.length > 0;
  }

  async deleteRecoveryCodes(db: Queryable, userId: number): Promise<void> {
    await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  }

  async replaceRecoveryCodes(db: Queryable, userId: number, hashes: string[]): Promise<void> {
    await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    await db
      .insertInto('recovery_codes')
      .values(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
      .execute();
  }

  /** Uses up a recovery code of this user; whether it was one, unused. */
  async spendRecoveryCode(db: Queryable, userId: number, hash: string): Promise<boolean> {
    const row = await db
      .updateTable('recovery_codes')
      .set({ used_at: new Date() })
      .where('user_id', '=', userId)
      .where('code_hash', '=', hash)
      .where('used_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  async recoveryCodesLeft(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertChallenge(db: Queryable, userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
    await db
      .insertInto('login_challenges')
      .values({ user_id: userId, token_hash: tokenHash, expires_at: expiresAt })
      .execute();
  }

  /** Counts an attempt at a live challenge; its user and the attempts so far, or undefined when it is not live. */
  attemptChallenge(db: Queryable, tokenHash: string) {
    return db
      .updateTable('login_challenges')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returning(['id', 'user_id', 'attempts'])
      .executeTakeFirst();
  }

  /** The user of a live login challenge (without counting an attempt), or null. */
  async liveChallengeUser(db: Queryable, tokenHash: string): Promise<number | null> {
    const row = await db
      .selectFrom('login_challenges')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .executeTakeFirst();
    return row?.user_id ?? null;
  }

  async spendChallenge(db: Queryable, id: number): Promise<void> {
    await db.updateTable('login_challenges').set({ used_at: new Date() }).where('id', '=', id).execute();
  }

  /** Records that a session proved a factor now. */
  async markSessionVerified(db: Queryable, sessionId: number): Promise<void> {
    const now = new Date();
    await db
      .insertInto('session_factors')
      .values({ session_id: sessionId, verified_at: now })
      .onConflict((oc) => oc.column('session_id').doUpdateSet({ verified_at: now }))
      .execute();
  }

  async sessionVerifiedAt(db: Queryable, sessionId: number): Promise<Date | null> {
    const row = await db
      .selectFrom('session_factors')
      .select('verified_at')
      .where('session_id', '=', sessionId)
      .executeTakeFirst();
    return row?.verified_at ?? null;
  }

  async sessionIdOf(db: Queryable, tokenHash: string): Promise<number | null> {
    const row = await db
      .selectFrom('sessions')
      .select('id')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row?.id ?? null;
  }
}
