import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { hashSecret } from '../../platform/auth.js';
import type { DB } from '../../platform/db/schema.js';
import { type PageOf, toPage } from '../../platform/http.js';
import type { SecurityEventRow, SecurityLogRepository } from './security-log-repository.js';

/** What the security log records; the contract lists the same kinds. */
export const SECURITY_EVENT_KINDS = [
  'account_created',
  'login',
  'login_challenged',
  'login_failed',
  'login_throttled',
  'rate_limited',
  'session_ended',
  'password_changed',
  'password_reset',
  'email_verified',
  'api_key_created',
  'api_key_changed',
  'api_key_revoked',
  'totp_added',
  'totp_removed',
  'passkey_added',
  'passkey_removed',
  'factor_verified',
  'password_check_failed',
] as const;
export type SecurityEventKind = (typeof SECURITY_EVENT_KINDS)[number];

/** A sign-in from an address and user agent the account has not used for this long is a new one. */
export const NEW_SIGN_IN_DAYS = 90;

/** A sign-in from an address and user agent the log has not seen for the account lately (NEW_SIGN_IN_DAYS). */
export interface NewSignIn {
  userId: number;
  address: string | null;
  userAgent: string | null;
  method: string | null;
  at: Date;
}

/** The job that deletes entries past the retention, and how many it deletes at a time. */
export const SECURITY_LOG_PRUNE_JOB = 'security-log.prune';
const PRUNE_BATCH = 1000;

export interface SecurityLogSettings {
  /** Entries older than this many days are deleted by the prune job; 0 keeps them for ever. */
  retentionDays: number;
}

/** Throttling repeats itself while a client keeps trying: one entry of each kind a minute is enough to see it. */
const THROTTLE_ENTRY_SECONDS = 60;
const THROTTLED = new Set<SecurityEventKind>(['login_throttled', 'rate_limited']);

type Body = Record<string, unknown>;
interface Answer {
  request: FastifyRequest;
  status: number;
  /** The answer's JSON (an object, or {} when it had none). */
  json: Body;
  body: Body;
  params: Record<string, string>;
}

interface Rule {
  kind: SecurityEventKind;
  when: (answer: Answer) => boolean;
  /** Whose account: the caller's by default; for the sign-in routes, read from the request or the answer. */
  who?: (answer: Answer, lookup: Lookups) => Promise<number | null>;
  details?: (answer: Answer) => Record<string, unknown> | null;
}

interface Lookups {
  byEmail(email: string): Promise<number | null>;
  byLoginChallenge(token: string): Promise<number | null>;
  byEmailLink(token: string): Promise<number | null>;
  byPasskey(credentialId: string): Promise<number | null>;
}

const ok = (a: Answer) => a.status < 300;
const code = (a: Answer) => a.json.code;
const signedIn = (a: Answer) => ok(a) && typeof a.json.token === 'string';
const answerUser = async (a: Answer) => Number((a.json.user as Body | undefined)?.id ?? Number.NaN) || null;
const emailOf = (a: Answer, lookup: Lookups) =>
  lookup.byEmail(
    String(a.body.email ?? '')
      .trim()
      .toLowerCase(),
  );
const challengeOf = (a: Answer, lookup: Lookups) =>
  lookup.byLoginChallenge(String(a.body.challengeToken ?? ''));
const linkOf = (a: Answer, lookup: Lookups) => lookup.byEmailLink(String(a.body.token ?? ''));
const passkeyOf = (a: Answer, lookup: Lookups) =>
  lookup.byPasskey(String((a.body.response as Body | undefined)?.id ?? ''));
const factorOf = (body: Body) =>
  body.passkey !== undefined ? 'passkey' : body.recoveryCode !== undefined ? 'recovery_code' : 'totp';

/** A signed-in request refused because the current password it carried was wrong (not because it was missing). */
const wrongPassword = (a: Answer) =>
  a.status === 400 &&
  Array.isArray(a.json.details) &&
  (a.json.details as Body[]).some(
    (d) =>
      ['body.password', 'body.currentPassword'].includes(String(d.field)) && d.message === 'is not correct',
  );
const passwordRefused = (action: string): Rule => ({
  kind: 'password_check_failed',
  when: wrongPassword,
  details: () => ({ action }),
});

/** The entries each route makes, by method and route path. */
const RULES: Record<string, Rule[]> = {
  'POST /api/auth/register': [{ kind: 'account_created', when: ok, who: answerUser }],
  'POST /api/auth/login': [
    { kind: 'login', when: signedIn, who: answerUser, details: () => ({ method: 'password' }) },
    {
      kind: 'login_challenged',
      when: (a) => ok(a) && a.json.secondFactorRequired === true,
      who: emailOf,
      details: () => ({ method: 'password' }),
    },
    {
      kind: 'login_failed',
      when: (a) => a.status === 401,
      who: emailOf,
      details: () => ({ step: 'password' }),
    },
    { kind: 'login_throttled', when: (a) => a.status === 429, who: emailOf },
  ],
  'POST /api/auth/login/second-factor': [
    {
      kind: 'login',
      when: signedIn,
      who: answerUser,
      details: (a) => ({ method: `password+${factorOf(a.body)}` }),
    },
    {
      kind: 'login_failed',
      when: (a) => code(a) === 'INVALID_SECOND_FACTOR',
      who: challengeOf,
      details: (a) => ({ step: factorOf(a.body) }),
    },
  ],
  'POST /api/auth/passkey': [
    { kind: 'login', when: signedIn, who: answerUser, details: () => ({ method: 'passkey' }) },
    {
      kind: 'login_failed',
      when: (a) => a.status === 401,
      who: passkeyOf,
      details: () => ({ step: 'passkey' }),
    },
  ],
  'POST /api/auth/logout': [{ kind: 'session_ended', when: ok, details: () => ({ session: 'current' }) }],
  'DELETE /api/me/sessions/:id': [
    { kind: 'session_ended', when: ok, details: (a) => ({ sessionId: a.params.id }) },
  ],
  'POST /api/me/password': [
    { kind: 'password_changed', when: ok, details: (a) => ({ endedSessions: a.json.endedSessions }) },
    passwordRefused('password_change'),
  ],
  'POST /api/auth/reset-password': [{ kind: 'password_reset', when: ok, who: linkOf }],
  'POST /api/auth/verify-email': [{ kind: 'email_verified', when: ok, who: linkOf }],
  'POST /api/me/api-keys': [
    {
      kind: 'api_key_created',
      when: ok,
      details: (a) => ({ keyId: a.json.id, name: a.json.name, scopes: a.json.scopes }),
    },
  ],
  'PATCH /api/me/api-keys/:id': [
    {
      kind: 'api_key_changed',
      when: ok,
      details: (a) => ({ keyId: a.params.id, changed: Object.keys(a.body) }),
    },
  ],
  'DELETE /api/me/api-keys/:id': [
    { kind: 'api_key_revoked', when: ok, details: (a) => ({ keyId: a.params.id }) },
  ],
  'POST /api/me/second-factors/totp/confirm': [
    { kind: 'totp_added', when: ok },
    passwordRefused('totp_added'),
  ],
  'DELETE /api/me/second-factors/totp': [{ kind: 'totp_removed', when: ok }],
  'POST /api/me/second-factors/verify': [
    { kind: 'factor_verified', when: ok, details: (a) => ({ method: factorOf(a.body) }) },
  ],
  'POST /api/me/passkeys': [
    {
      kind: 'passkey_added',
      when: ok,
      details: (a) => {
        const passkey = (a.json.passkey ?? {}) as Body;
        return { passkeyId: passkey.id, name: passkey.name };
      },
    },
    passwordRefused('passkey_added'),
  ],
  'DELETE /api/me/passkeys/:id': [
    { kind: 'passkey_removed', when: ok, details: (a) => ({ passkeyId: a.params.id }) },
  ],
};

function parse(payload: unknown): Body {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return {};
  try {
    return JSON.parse(payload) as Body;
  } catch {
    return {};
  }
}

/**
 * The security log of each account: written from the answers of the routes that sign in, end sessions and change
 * keys, factors, the password and the address (RULES), and from every refusal of a signed-in caller's request
 * budget. A failed sign-in is written to the account it named, when there is one.
 */
export class SecurityLog {
  private readonly lookups: Lookups;
  private newSignIn: ((signIn: NewSignIn) => Promise<void>) | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly repository: SecurityLogRepository,
    private readonly settings: SecurityLogSettings,
  ) {
    this.lookups = {
      byEmail: (email) => repository.userByEmail(db, email),
      byLoginChallenge: (token) => repository.userByLoginChallenge(db, hashSecret(token)),
      byEmailLink: (token) => repository.userByEmailLink(db, hashSecret(token)),
      byPasskey: (id) => repository.userByPasskey(db, id),
    };
  }

  /** Told of each sign-in from an address and agent the account has not used lately (not of its first sign-in). */
  onNewSignIn(listener: (signIn: NewSignIn) => Promise<void>): void {
    this.newSignIn = listener;
  }

  /** Deletes the entries past the retention (none when it is 0), a batch at a time; how many went. */
  async prune(): Promise<number> {
    if (this.settings.retentionDays === 0) return 0;
    let total = 0;
    for (;;) {
      const deleted = await this.repository.deleteOlderThan(
        this.db,
        this.settings.retentionDays,
        PRUNE_BATCH,
      );
      total += deleted;
      if (deleted < PRUNE_BATCH) return total;
    }
  }

  async list(
    userId: number,
    limit: number,
    cursor: number | null,
  ): Promise<PageOf<ReturnType<typeof toEvent>>> {
    const rows = await this.repository.list(this.db, userId, limit, cursor);
    return toPage(rows, limit, toEvent, (row) => [row.id]);
  }

  /** Writes what an answered request says about an account's security, if anything. */
  async recordAnswer(request: FastifyRequest, status: number, payload: unknown): Promise<void> {
    const rules = RULES[`${request.method} ${request.routeOptions.url ?? ''}`] ?? [];
    if (rules.length === 0 && !(status === 429 && request.user)) return;
    const answer: Answer = {
      request,
      status,
      json: parse(payload),
      body: (request.body ?? {}) as Body,
      params: (request.params ?? {}) as Record<string, string>,
    };
    const matched = rules.filter((candidate) => candidate.when(answer));
    for (const rule of matched) {
      const userId = rule.who ? await rule.who(answer, this.lookups) : (request.user?.userId ?? null);
      if (userId !== null) await this.write(request, userId, rule.kind, rule.details?.(answer) ?? null);
    }
    if (status === 429 && request.user && matched.length === 0)
      await this.write(request, request.user.userId, 'rate_limited', { code: answer.json.code ?? null });
  }

  private async write(
    request: FastifyRequest,
    userId: number,
    kind: SecurityEventKind,
    details: Record<string, unknown> | null,
  ): Promise<void> {
    const agent = request.headers['user-agent'];
    const entry = {
      userId,
      kind,
      address: request.ip,
      userAgent: typeof agent === 'string' ? agent : null,
      details,
    };
    if (THROTTLED.has(kind)) return this.repository.insertOnce(this.db, entry, THROTTLE_ENTRY_SECONDS);
    const history =
      kind === 'login' && this.newSignIn
        ? await this.repository.signInHistory(this.db, entry, NEW_SIGN_IN_DAYS)
        : null;
    await this.repository.insert(this.db, entry);
    if (history?.signedInBefore && !history.seen && this.newSignIn) {
      const method = typeof details?.method === 'string' ? details.method : null;
      await this.newSignIn({
        userId,
        address: entry.address,
        userAgent: entry.userAgent,
        method,
        at: new Date(),
      });
    }
  }
}

function toEvent(row: SecurityEventRow) {
  return {
    id: String(row.id),
    kind: row.kind as SecurityEventKind,
    at: row.created_at.toISOString(),
    address: row.address,
    userAgent: row.user_agent,
    details: (row.details ?? null) as Record<string, unknown> | null,
  };
}

/**
 * Writes each answer's entries before it leaves. A log that cannot be written is reported, never turned into a
 * failed answer: the change it describes is made already.
 */
export function recordSecurityEvents(app: FastifyInstance, log: SecurityLog): void {
  app.addHook('onSend', async (request, reply, payload) => {
    await log.recordAnswer(request, reply.statusCode, payload).catch((error: unknown) => {
      request.log.error({ err: error }, 'security log entry not written');
    });
    return payload;
  });
}
