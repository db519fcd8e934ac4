import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { ValidationError } from '../../../platform/errors.js';
import { iso } from '../../../platform/http.js';
import { avatarUrl } from '../avatar/storage.js';
import type { UserPreferencesTable } from '../tables.js';
import type { PreferencesChanges, PreferencesRepository } from './repository.js';

export interface PreferencesPatchInput {
  displayName?: string | null | undefined;
  bio?: string | undefined;
  darkMode?: boolean | undefined;
  timezone?: string | null | undefined;
  notifications?:
    | {
        trades?: boolean | undefined;
        social?: boolean | undefined;
        competitions?: boolean | undefined;
        marketing?: boolean | undefined;
        newSignIn?: boolean | undefined;
      }
    | undefined;
}

export interface PreferencesView {
  displayName: string | null;
  bio: string;
  darkMode: boolean;
  timezone: string | null;
  notifications: {
    trades: boolean;
    social: boolean;
    competitions: boolean;
    marketing: boolean;
    newSignIn: boolean;
  };
  avatarUrl: string | null;
  updatedAt: string | null;
}

/** A user's own settings: profile text, display choices and which notifications reach the feed. */
export class PreferencesService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly preferences: PreferencesRepository,
  ) {}

  async get(userId: number): Promise<PreferencesView> {
    return this.view(await this.preferences.find(this.db, userId));
  }

  async update(userId: number, patch: PreferencesPatchInput): Promise<PreferencesView> {
    const changes: PreferencesChanges = {};
    if (patch.displayName !== undefined) {
      const name = patch.displayName?.trim() ?? null;
      if (name === '') {
        throw new ValidationError('Display name cannot be blank', [
          { field: 'body.displayName', message: 'must not be blank; send null to clear it' },
        ]);
      }
      changes.display_name = name;
    }
    if (patch.bio !== undefined) changes.bio = patch.bio.trim();
    if (patch.darkMode !== undefined) changes.dark_mode = patch.darkMode;
    if (patch.timezone !== undefined) changes.timezone = patch.timezone && validTimezone(patch.timezone);
    const notifications = patch.notifications ?? {};
    if (notifications.trades !== undefined) changes.notify_trades = notifications.trades;
    if (notifications.social !== undefined) changes.notify_social = notifications.social;
    if (notifications.competitions !== undefined) changes.notify_competitions = notifications.competitions;
    if (notifications.marketing !== undefined) changes.notify_marketing = notifications.marketing;
    if (notifications.newSignIn !== undefined) changes.notify_new_sign_in = notifications.newSignIn;
    return this.view(await this.preferences.upsert(this.db, userId, changes));
  }

  private view(row: Selectable<UserPreferencesTable> | undefined): PreferencesView {
    return {
      displayName: row?.display_name ?? null,
      bio: row?.bio ?? '',
      darkMode: row?.dark_mode ?? false,
      timezone: row?.timezone ?? null,
      notifications: {
        trades: row?.notify_trades ?? true,
        social: row?.notify_social ?? true,
        competitions: row?.notify_competitions ?? true,
        marketing: row?.notify_marketing ?? false,
        newSignIn: row?.notify_new_sign_in ?? true,
      },
      avatarUrl: row?.avatar_key ? avatarUrl(row.avatar_key) : null,
      updatedAt: row ? iso(row.updated_at) : null,
    };
  }
}

/** Any zone the runtime knows, kept as written: ICU would rename some (Asia/Kolkata → Asia/Calcutta). */
function validTimezone(name: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name;
  } catch {
    throw new ValidationError('Unknown time zone', [
      { field: 'body.timezone', message: 'must be an IANA time zone such as Asia/Kolkata' },
    ]);
  }
}
