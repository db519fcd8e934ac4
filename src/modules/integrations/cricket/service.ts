import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { NotFoundError, ProviderNotConfiguredError } from '../../../platform/errors.js';
import { ProviderCache } from '../cache.js';
import type { EventLookup } from '../events.js';
import type { CricketProvider, LiveMatch } from '../providers/cricket.js';
import type { CricketRepository } from './repository.js';

// Scores older than this are no longer "live", even when the provider is down.
const STALE_SCORES_MS = 5 * 60_000;

/** Live cricket scores from the configured provider, with the markets linked to each match. */
export class CricketService {
  private readonly cache: ProviderCache<LiveMatch[]> | null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly links: CricketRepository,
    private readonly events: EventLookup,
    private readonly provider: CricketProvider | null,
    options: { cacheSeconds: number },
    log: FastifyBaseLogger,
  ) {
    this.cache = provider
      ? new ProviderCache({
          ttlMs: options.cacheSeconds * 1000,
          maxStaleMs: STALE_SCORES_MS,
          maxEntries: 1,
          onUnexpected: (err) => log.error({ err }, 'cricket provider failed unexpectedly'),
        })
      : null;
  }

  async live() {
    const provider = this.provider;
    if (!provider || !this.cache) throw new ProviderNotConfiguredError('cricket data');
    const answer = await this.cache.get('live', () => provider.liveMatches());
    const matches = answer.value ?? [];
    const linked = await this.links.linkedEvents(
      this.db,
      matches.map((match) => match.id),
    );
    return {
      matches: matches.map((match) => ({
        id: match.id,
        teams: match.teams,
        status: match.status,
        ...(match.startedAt ? { startedAt: match.startedAt.toISOString() } : {}),
        events: linked
          .filter((event) => event.match_id === match.id)
          .map((event) => ({ id: String(event.id), slug: event.slug, title: event.title })),
      })),
      fetchedAt: answer.fetchedAt ? answer.fetchedAt.toISOString() : null,
      provider: {
        name: 'cricket',
        status: answer.status,
        fetchedAt: answer.fetchedAt ? answer.fetchedAt.toISOString() : null,
        ...(answer.message ? { message: answer.message } : {}),
      },
    };
  }

  async link(eventId: number, matchId: string) {
    await this.events.byId(eventId);
    await this.links.link(this.db, eventId, matchId.trim());
    return { eventId: String(eventId), matchId: matchId.trim() };
  }

  async unlink(eventId: number): Promise<void> {
    await this.events.byId(eventId);
    if (!(await this.links.unlink(this.db, eventId))) throw new NotFoundError('Cricket match link');
  }
}
