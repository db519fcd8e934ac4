import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { UnsupportedMediaTypeError, ValidationError } from '../../../platform/errors.js';
import type { PreferencesRepository } from '../preferences/repository.js';
import { AVATAR_CONTENT_TYPE, isAcceptedAvatarType, reencodeAvatar, sniffImageType } from './image.js';
import { type AvatarStorage, avatarUrl, newAvatarKey } from './storage.js';

/** Avatar upload and serving: judge the bytes, re-encode, store under a fresh key, point the profile at it. */
export class AvatarService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly preferences: PreferencesRepository,
    private readonly storage: AvatarStorage,
  ) {}

  async upload(userId: number, data: Buffer): Promise<{ avatarUrl: string; contentType: string }> {
    const detected = await sniffImageType(data);
    if (!isAcceptedAvatarType(detected)) {
      throw new UnsupportedMediaTypeError(
        `An avatar must be a JPEG, PNG, WebP or GIF image${detected ? ` (this file is ${detected})` : ''}`,
      );
    }
    let image: Buffer;
    try {
      image = await reencodeAvatar(data);
    } catch {
      throw new ValidationError('The image could not be read', [
        { field: 'file', message: 'is damaged, truncated or too large in pixels (at most 40 megapixels)' },
      ]);
    }
    const key = newAvatarKey(userId);
    await this.storage.put(key, image, AVATAR_CONTENT_TYPE);
    const previous = await this.db
      .transaction()
      .execute((trx) => this.preferences.replaceAvatar(trx, userId, key));
    if (previous !== null) {
      // The new avatar is live; a leftover old file is only wasted space, so its removal may fail quietly.
      await this.storage.remove(previous).catch(() => undefined);
    }
    return { avatarUrl: avatarUrl(key), contentType: AVATAR_CONTENT_TYPE };
  }

  read(key: string): Promise<Buffer | null> {
    return this.storage.get(key);
  }
}
