import pg from 'pg';
import { databaseCondition } from './types.js';

/**
 * libpq's multi-host connection strings (`postgres://h1:5432,h2:5432/db?target_session_attrs=read-write`), which
 * node-postgres does not read: the hosts are split out here, and each host is asked what it is now, as libpq does
 * when it connects.
 */

/** What a host must be for the service to use it: libpq's `target_session_attrs`. */
export type SessionAttrs = 'any' | 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby';

export const SESSION_ATTRS: readonly SessionAttrs[] = [
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
];

/** A PostgreSQL connection string with the hosts it names split out. */
export interface DatabaseTarget {
  /** One connection string per host named, in the order named, each without `target_session_attrs`. */
  hosts: string[];
  attrs: SessionAttrs;
}

/** A connection string the service cannot use; the message completes "DATABASE_URL …". */
export class DatabaseUrlError extends Error {}

// scheme, user information (up to the last @ before the path), the list of hosts, the path, the parameters.
const URI = /^(postgres(?:ql)?:\/\/)(?:([^/?#]*)@)?([^/?#]*)([^?#]*)(\?[^#]*)?$/;

export function parseDatabaseUrl(url: string): DatabaseTarget {
  const match = URI.exec(url.trim());
  if (!match) throw new DatabaseUrlError('must be a postgres:// or postgresql:// URL');
  const [, scheme, userinfo, hostList = '', path = '', query = ''] = match;
  const params = new URLSearchParams(query.slice(1));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!(SESSION_ATTRS as readonly string[]).includes(attrs))
    throw new DatabaseUrlError(
      `has target_session_attrs=${attrs}; it must be one of ${SESSION_ATTRS.join(', ')}`,
    );
  params.delete('target_session_attrs');
  for (const name of ['host', 'hostaddr', 'port']) {
    if (params.get(name)?.includes(','))
      throw new DatabaseUrlError(
        `names several hosts in ?${name}=; name them before the path instead: postgres://h1:5432,h2:5432/db`,
      );
  }
  const search = [...params.keys()].length > 0 ? `?${params}` : '';
  const credentials = userinfo === undefined ? '' : `${userinfo}@`;
  const hosts = hostList.split(',').map((host) => {
    if (host === '' && hostList !== '')
      throw new DatabaseUrlError('names an empty host in its list of hosts');
    const single = `${scheme}${credentials}${host}${path}${search}`;
    try {
      new URL(single);
    } catch {
      throw new DatabaseUrlError(`names a host that is not a valid host[:port]: ${host}`);
    }
    return single;
  });
  return { hosts, attrs: attrs as SessionAttrs };
}

/** Where a target points, without its credentials: `h1:5432,h2:5432/db`. */
export function addressOf(target: DatabaseTarget | string): string {
  const hosts = typeof target === 'string' ? [target] : target.hosts;
  const parsed = hosts.map((host) => new URL(host));
  return `${parsed.map((url) => `${url.hostname}:${url.port || 5432}`).join(',')}${parsed[0]?.pathname ?? ''}`;
}

/** What one host is now. */
export interface HostRole {
  /** A standby (`pg_is_in_recovery()`). */
  inRecovery: boolean;
  /** Sessions take no writes (`transaction_read_only`: a standby, or `default_transaction_read_only`). */
  readOnly: boolean;
}

/** Connects to one host and asks its role, within `timeoutMs` for the connection and again for the answer. */
export async function probeHost(url: string, timeoutMs: number): Promise<HostRole> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ in_recovery: boolean; read_only: string }>(
      "SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only",
    );
    return { inRecovery: rows[0]?.in_recovery === true, readOnly: rows[0]?.read_only === 'on' };
  } finally {
    client.end().catch(() => {});
  }
}

/** True when a host of this role is one `attrs` asks for (`prefer-standby` takes any host once no standby is found). */
export function fits(role: HostRole, attrs: SessionAttrs): boolean {
  switch (attrs) {
    case 'read-write':
      return !role.readOnly;
    case 'read-only':
      return role.readOnly;
    case 'primary':
      return !role.inRecovery;
    case 'standby':
      return role.inRecovery;
    default:
      return true;
  }
}

/** True when `attrs` asks for a host that takes writes. */
export function wantsWrites(attrs: SessionAttrs): boolean {
  return attrs === 'read-write' || attrs === 'primary';
}

/**
 * No host of the target is what it asks for now. Its `code` makes it a database condition: `25006` (read-only)
 * when a host answered but none takes writes, as during a failover before the standby is promoted; `08001` (no
 * connection could be made) otherwise.
 */
export class NoHostFitsError extends Error {
  constructor(
    readonly code: '25006' | '08001',
    message: string,
  ) {
    super(message);
    this.name = 'NoHostFitsError';
  }
}

/**
 * The host of `target` to use now. Every host is asked at once; the first to answer with a role that fits wins
 * (`prefer-standby` waits for every answer, up to `timeoutMs`, and takes a standby if there is one). A failure that
 * is not the database's (a wrong password, no such database) is thrown as it is, so that start-up stops at once.
 */
export async function findHost(target: DatabaseTarget, timeoutMs: number): Promise<string> {
  const wanted = target.attrs === 'prefer-standby' ? 'standby' : target.attrs;
  const answers = target.hosts.map((url) =>
    probeHost(url, timeoutMs).then(
      (role) => ({ url, role, error: null }),
      (error: unknown) => ({ url, role: null, error }),
    ),
  );
  const first = await new Promise<string | null>((resolve) => {
    for (const answer of answers)
      void answer.then(({ url, role }) => {
        if (role && fits(role, wanted)) resolve(url);
      });
    void Promise.all(answers).then(() => resolve(null));
  });
  if (first !== null) return first;
  const settled = await Promise.all(answers);
  const answered = settled.filter((a) => a.role !== null);
  if (target.attrs === 'prefer-standby' && answered[0]) return answered[0].url;
  const refusal = settled.find((a) => a.error !== null && databaseCondition(a.error) === null);
  if (refusal) throw refusal.error;
  const reasons = settled.map((a) => `${addressOf(a.url)}: ${describe(a.role, a.error)}`).join('; ');
  throw new NoHostFitsError(
    answered.length > 0 && wantsWrites(target.attrs) ? '25006' : '08001',
    `no host is ${target.attrs} (${reasons})`,
  );
}

function describe(role: HostRole | null, error: unknown): string {
  if (role) return role.inRecovery ? 'a standby' : role.readOnly ? 'read-only' : 'takes writes';
  return error instanceof Error ? error.message : String(error);
}
