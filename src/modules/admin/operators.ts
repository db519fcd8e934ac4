import type { Kysely } from 'kysely';
import { hashSecret, newSecret } from '../../platform/auth.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { AppError, ConflictError, NotFoundError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import type { CredentialChanges } from '../accounts/credentials.js';
import type { AdminActionEntry, AdminRepository, OperatorRow } from './repository.js';
import type { AdminVia } from './tables.js';

/** Who acts: an account through the API, the operator's command line, or a redeemed bootstrap token. */
export interface Actor {
  userId: number | null;
  via: AdminVia;
  address: string | null;
}

export type Role = 'user' | 'admin';

export class BootstrapRefusedError extends AppError {
  constructor() {
    super(403, 'BOOTSTRAP_REFUSED', 'This bootstrap token is unknown or used, or an operator exists already');
  }
}

export class LastAdminError extends ConflictError {
  constructor() {
    super('LAST_ADMIN', 'The last admin keeps the role: grant it to another account first');
  }
}

const BOOTSTRAP_PREFIX = 'pmx_boot_';

function toOperator(row: OperatorRow) {
  return { userId: String(row.id), email: row.email, username: row.username, role: row.role };
}

/**
 * Who is an operator, and what operators did. A role changes in a transaction that also writes the admin audit
 * log and announces the change, so every instance stops trusting its cached copy of the account when it commits.
 */
export class OperatorsService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly admin: AdminRepository,
    private readonly credentials: CredentialChanges,
  ) {}

  async list() {
    return { data: (await this.admin.operators(this.db)).map(toOperator) };
  }

  /** Gives or takes the admin role of the account named by id, email or username. */
  async setRole(actor: Actor, accountRef: string, role: Role) {
    const account = await this.db.transaction().execute(async (trx) => {
      await this.admin.lockRoles(trx);
      const found = await this.admin.findAccount(trx, accountRef);
      if (!found) throw new NotFoundError('Account');
      if (role === 'user' && found.role === 'admin' && (await this.admin.adminCount(trx)) <= 1) {
        throw new LastAdminError();
      }
      if (await this.admin.setRole(trx, found.id, role)) {
        await this.changed(trx, actor, found, role === 'admin' ? 'grant-admin' : 'revoke-admin');
      }
      return { ...found, role };
    });
    this.credentials.forgetCredentials({ userId: account.id });
    return toOperator(account);
  }

  /** Records an operator's action in the admin audit log. */
  async record(entry: AdminActionEntry): Promise<void> {
    await this.admin.recordAction(this.db, entry);
  }

  async actions(limit: number, cursor: string | undefined, target: { type: string; id?: string } | null) {
    const before = decodeCursor(cursor, 1);
    const rows = await this.admin.actions(this.db, limit, before ? Number(before[0]) : null, target);
    return toPage(
      rows,
      limit,
      (row) => ({
        id: String(row.id),
        actorId: row.actor_id === null ? null : String(row.actor_id),
        actorUsername: row.actor_username,
        via: row.via,
        action: row.action,
        summary: row.summary,
        targetType: row.target_type,
        targetId: row.target_id,
        details: row.details ?? null,
        address: row.address,
        at: row.created_at.toISOString(),
      }),
      (row) => [row.id],
    );
  }

  /**
   * While no account is admin, makes a one-time token that turns a signed-in account into the first operator (the
   * configured one when given, so automation can know it), for the log at start. Null once an admin exists.
   */
  async offerBootstrap(configured: string | null): Promise<string | null> {
    if ((await this.admin.adminCount(this.db)) > 0) return null;
    const token = configured ?? newSecret(BOOTSTRAP_PREFIX);
    await this.admin.insertBootstrapToken(this.db, hashSecret(token));
    return token;
  }

  /** Makes the signed-in account admin with a bootstrap token, once: every token goes with it. */
  async redeemBootstrap(actor: Actor & { userId: number }, token: string) {
    const account = await this.db.transaction().execute(async (trx) => {
      await this.admin.lockRoles(trx);
      const known = await this.admin.bootstrapTokenExists(trx, hashSecret(token));
      if (!known || (await this.admin.adminCount(trx)) > 0) throw new BootstrapRefusedError();
      const found = await this.admin.findAccount(trx, String(actor.userId));
      if (!found) throw new NotFoundError('Account');
      await this.admin.clearBootstrapTokens(trx);
      await this.admin.setRole(trx, found.id, 'admin');
      await this.changed(trx, { ...actor, via: 'bootstrap' }, found, 'grant-admin');
      return { ...found, role: 'admin' as const };
    });
    this.credentials.forgetCredentials({ userId: account.id });
    return toOperator(account);
  }

  private async changed(trx: Tx, actor: Actor, account: OperatorRow, action: string): Promise<void> {
    if (action === 'grant-admin') await this.admin.clearBootstrapTokens(trx);
    await this.admin.recordAction(trx, {
      actorId: actor.userId,
      via: actor.via,
      action,
      summary: action === 'grant-admin' ? 'Granted the admin role' : 'Revoked the admin role',
      targetType: 'user',
      targetId: String(account.id),
      details: { username: account.username },
      address: actor.address,
    });
    await this.credentials.announceCredentialChange(trx, { userId: account.id });
  }
}
