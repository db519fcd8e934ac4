import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Secrets the service must read back (webhook signing secrets, TOTP secrets) are kept sealed with AES-256-GCM under a keyring:
 * new values are sealed with the first key, and a sealed value names the key it was sealed with, so the keys that
 * come after the first still open what they sealed while it is rotated out.
 *
 * A sealed value: `enc:v1:<key id>:<12-byte nonce>:<ciphertext and 16-byte tag>` (base64url). The key id is a
 * fingerprint of the key (nothing to name or keep in step). The context (what the value belongs to, e.g. its
 * owner) is authenticated with it, so a sealed value copied to another row does not open there.
 */

const PREFIX = 'enc:v1:';
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Where the embedded service keeps the key it made for itself, in its data folder. */
export const KEY_FILE_NAME = 'secrets.key';

/** A sealed value that cannot be opened: its key is not in the keyring, or the value was altered. */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** The id a key is known by in what it sealed: the first 12 hex digits of a SHA-256 of it. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('pmx-secrets-key:').update(key).digest('hex').slice(0, 12);
}

/**
 * Keys written as in `SECRETS_KEY`: base64 of 32 bytes each, separated by commas, spaces or new lines, the current
 * one first. Throws with what is wrong (never with a key in the message).
 */
export function parseKeys(text: string): Buffer[] {
  const keys = text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((encoded, i) => {
      const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
      if (key.length !== KEY_BYTES) throw new Error(`key ${i + 1} is not the base64 of ${KEY_BYTES} bytes`);
      return key;
    });
  if (keys.length === 0) throw new Error('holds no key');
  return keys;
}

/** A new key, written as `SECRETS_KEY` takes it. */
export function newKeyText(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  readonly currentKeyId: string;

  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('a keyring needs at least one key');
    this.keys = new Map(keys.map((key) => [keyIdOf(key), key]));
    this.currentKeyId = keyIdOf(keys[0] as Buffer);
  }

  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId) as Buffer, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.currentKeyId}:${nonce.toString('base64url')}:${body.toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const parts = sealed.startsWith(PREFIX) ? sealed.slice(PREFIX.length).split(':') : [];
    const [keyId, nonceText, bodyText] = parts;
    if (parts.length !== 3 || !keyId || !nonceText || !bodyText)
      throw new SecretKeyError('not a sealed value');
    const key = this.keys.get(keyId);
    if (!key) throw new SecretKeyError(`sealed with key ${keyId}, which is not in SECRETS_KEY`);
    const body = Buffer.from(bodyText, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonceText, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretKeyError(`a value sealed with key ${keyId} does not open: it was altered or moved`);
    }
  }
}

/** Whether a stored value is sealed, and with which key; null for a value stored before sealing (plain text). */
export function sealedKeyId(value: string): string | null {
  return value.startsWith(PREFIX) ? (value.slice(PREFIX.length).split(':')[0] ?? null) : null;
}

export interface KeyringSource {
  /** `SECRETS_KEY`, parsed; empty when unset. */
  configured: Buffer[];
  nodeEnv: 'development' | 'production' | 'test';
  databaseKind: 'pglite' | 'postgres';
  dataDir: string;
}

/**
 * The keyring: `SECRETS_KEY` when set. Without it, a production service on PostgreSQL refuses to start (its
 * instances must share one key that outlives any of their disks); otherwise the key in DATA_DIR/secrets.key is
 * used, made at the first start.
 */
export function loadKeyring(
  source: KeyringSource,
  log: { warn(details: object, message: string): void },
): SecretBox {
  if (source.configured.length > 0) return new SecretBox(source.configured);
  if (source.databaseKind === 'postgres' && source.nodeEnv === 'production') {
    throw new SecretKeyError(
      'SECRETS_KEY is not set: on PostgreSQL in production the service needs it to seal webhook and TOTP secrets ' +
        '(make one with: openssl rand -base64 32)',
    );
  }
  const file = join(source.dataDir, KEY_FILE_NAME);
  const keys = readOrMakeKeyFile(file);
  if (source.databaseKind === 'postgres') {
    log.warn(
      { file },
      'SECRETS_KEY is not set: webhook and TOTP secrets are sealed with this instance’s own key file; every ' +
        'instance on this database needs the same key (set SECRETS_KEY); in production the service refuses to start',
    );
  }
  return new SecretBox(keys);
}

function readOrMakeKeyFile(file: string): Buffer[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(join(file, '..'), { recursive: true });
    try {
      writeFileSync(file, `${newKeyText()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (raced) {
      // Another process made it first: use theirs.
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
    }
    text = readFileSync(file, 'utf8');
  }
  try {
    return parseKeys(text);
  } catch (error) {
    throw new SecretKeyError(`${file} ${(error as Error).message}`);
  }
}
