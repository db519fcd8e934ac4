import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { NotFoundError } from '../../../platform/errors.js';
import type { EventLookup } from '../events.js';
import type { SponsorFields, SponsorRepository, SponsorRow } from './repository.js';

export interface Sponsor extends SponsorFields {
  updatedAt: string;
}

/** The sponsor shown on a market page, set by admins. */
export class SponsorService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly sponsors: SponsorRepository,
    private readonly events: EventLookup,
  ) {}

  async forEvent(slug: string): Promise<{ sponsor: Sponsor | null }> {
    const event = await this.events.publicBySlug(slug);
    const row = await this.sponsors.find(this.db, event.id);
    return { sponsor: row ? toSponsor(row) : null };
  }

  async set(eventId: number, fields: SponsorFields): Promise<{ sponsor: Sponsor }> {
    await this.events.byId(eventId);
    const row = await this.sponsors.save(this.db, eventId, {
      name: fields.name.trim(),
      logoUrl: new URL(fields.logoUrl).toString(),
      linkUrl: new URL(fields.linkUrl).toString(),
      disclosure: fields.disclosure.trim(),
    });
    return { sponsor: toSponsor(row) };
  }

  async remove(eventId: number): Promise<void> {
    await this.events.byId(eventId);
    if (!(await this.sponsors.remove(this.db, eventId))) throw new NotFoundError('Sponsor');
  }
}

function toSponsor(row: SponsorRow): Sponsor {
  return {
    name: row.name,
    logoUrl: row.logo_url,
    linkUrl: row.link_url,
    disclosure: row.disclosure,
    updatedAt: row.updated_at.toISOString(),
  };
}
