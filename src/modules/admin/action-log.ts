import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminActionEntry } from './repository.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function singular(segment: string): string {
  return segment.endsWith('s') && segment !== 'status' ? segment.slice(0, -1) : segment;
}

function createdId(payload: unknown): string | null {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return null;
  try {
    const id = (JSON.parse(payload) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
  } catch {
    return null;
  }
}

/**
 * What an admin route acted on, read from its path: the segment before its first parameter names the kind
 * (`/api/admin/events/:id/resolve` → event), or, for a route without one, the created row (`POST /api/admin/events`)
 * or the setting it names (`PUT /api/admin/status`).
 */
export function targetOf(
  pattern: string,
  params: Record<string, string>,
  payload: unknown,
): { type: string; id: string | null } {
  const segments = pattern.replace(/^\/api\/admin\//, '').split('/');
  const at = segments.findIndex((segment) => segment.startsWith(':'));
  if (at > 0) {
    return { type: singular(segments[at - 1] ?? ''), id: params[segments[at]?.slice(1) ?? ''] ?? null };
  }
  const last = segments[segments.length - 1] ?? '';
  const id = createdId(payload);
  return id !== null ? { type: singular(last), id } : { type: 'setting', id: last };
}

/** The audit-log line of an admin change that succeeded, or null for reads, failures and self-recording routes. */
export function adminActionOf(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  selfRecording: ReadonlySet<string>,
): AdminActionEntry | null {
  const pattern = request.routeOptions.url ?? '';
  if (READS.has(request.method) || !pattern.startsWith('/api/admin/') || selfRecording.has(pattern))
    return null;
  if (reply.statusCode >= 400 || !request.user) return null;
  const target = targetOf(pattern, (request.params ?? {}) as Record<string, string>, payload);
  return {
    actorId: request.user.userId,
    via: 'api',
    action: `${request.method} ${pattern}`,
    summary: request.routeOptions.schema?.summary ?? `${request.method} ${pattern}`,
    targetType: target.type,
    targetId: target.id,
    details: request.body ?? null,
    address: request.ip,
  };
}

/**
 * Writes every successful change made through an admin route to the admin audit log before the answer leaves, so
 * no operator's change is acknowledged unrecorded.
 */
export function recordAdminActions(
  app: FastifyInstance,
  record: (entry: AdminActionEntry) => Promise<void>,
  selfRecording: ReadonlySet<string>,
): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const entry = adminActionOf(request, reply, payload, selfRecording);
    if (entry) await record(entry);
    return payload;
  });
}
