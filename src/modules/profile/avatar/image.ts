import { fileTypeFromBuffer } from 'file-type';

export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
export const AVATAR_SIZE = 256;
export const AVATAR_CONTENT_TYPE = 'image/webp';
export const ACCEPTED_AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;

/**
 * sharp (libvips) is loaded on the first upload, not at start (about 20 MB resident), with its operation cache off
 * and one thread: an avatar a minute needs neither, and both hold memory.
 */
let loaded: Promise<typeof import('sharp')> | null = null;
function imageLibrary(): Promise<typeof import('sharp')> {
  loaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return loaded;
}

/** Images whose decoded size exceeds this are refused before they are decoded (decompression bombs). */
const MAX_INPUT_PIXELS = 40_000_000;

/** The image type as the file's own bytes say, whatever name or content type the client sent. */
export async function sniffImageType(data: Buffer): Promise<string | null> {
  const type = await fileTypeFromBuffer(data);
  return type?.mime ?? null;
}

export function isAcceptedAvatarType(mime: string | null): boolean {
  return mime !== null && (ACCEPTED_AVATAR_TYPES as readonly string[]).includes(mime);
}

/**
 * Re-encodes to a square WebP of fixed size. Orientation is applied first; nothing else of the original's
 * metadata (EXIF, GPS, ICC, XMP) is carried over. Animated images keep their first frame.
 */
export async function reencodeAvatar(data: Buffer): Promise<Buffer> {
  const sharp = await imageLibrary();
  return sharp(data, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
    .rotate()
    .resize(AVATAR_SIZE, AVATAR_SIZE, { fit: 'cover', position: 'centre' })
    .webp({ quality: 82 })
    .toBuffer();
}
