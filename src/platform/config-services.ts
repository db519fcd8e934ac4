import { bool, ConfigError, type Env, int, raw, url } from './config-env.js';

/** S3-compatible object storage (AWS S3, MinIO, R2...) for avatars; unset S3_BUCKET keeps them on local disk. */
export interface S3Config {
  bucket: string;
  region: string;
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
}

export function s3Config(env: Env): S3Config | null {
  const bucket = raw(env, 'S3_BUCKET');
  if (bucket === undefined) {
    for (const name of ['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
      if (raw(env, name) !== undefined) throw new ConfigError(name, 'is set but S3_BUCKET is not');
    }
    return null;
  }
  const accessKeyId = raw(env, 'S3_ACCESS_KEY_ID') ?? null;
  const secretAccessKey = raw(env, 'S3_SECRET_ACCESS_KEY') ?? null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError(
      accessKeyId === null ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'must be set together with its pair',
    );
  }
  return {
    bucket,
    region: raw(env, 'S3_REGION') ?? 'us-east-1',
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
  };
}

/** The OpenAI-compatible API that summarises news (AI_BASE_URL; unset: none). */
export interface AiConfig {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

/** Outgoing mail: `SMTP_URL` (smtp: or smtps:, credentials in the URL) and the sender of its messages. */
export function mailConfig(env: Env, port: number): { smtpUrl: string | null; mailFrom: string } {
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const from = raw(env, 'MAIL_FROM');
  if (from !== undefined && !/^([^<>]*<)?[^\s@<>]+@[^\s@<>]+>?$/.test(from)) {
    throw new ConfigError('MAIL_FROM', 'must be an address such as "Exchange <no-reply@example.com>"');
  }
  const host = new URL(raw(env, 'PUBLIC_URL') ?? `http://localhost:${port}`).hostname;
  return { smtpUrl, mailFrom: from ?? `no-reply@${host.includes('.') ? host : `${host}.localdomain`}` };
}

/** A provider key without its provider's address is a deployment mistake worth stopping for. */
export function secretFor(env: Env, name: string, urlName: string): string | null {
  const value = raw(env, name) ?? null;
  if (value !== null && raw(env, urlName) === undefined) {
    throw new ConfigError(name, `is set but ${urlName} is not`);
  }
  return value;
}

export function aiConfig(env: Env): AiConfig | null {
  const baseUrl = url(env, 'AI_BASE_URL', ['http:', 'https:']);
  const apiKey = secretFor(env, 'AI_API_KEY', 'AI_BASE_URL');
  const model = raw(env, 'AI_MODEL') ?? null;
  const timeoutMs = int(env, 'AI_TIMEOUT_MS', 8000, 50, 120_000);
  if (baseUrl === null) {
    if (model !== null) throw new ConfigError('AI_MODEL', 'is set but AI_BASE_URL is not');
    return null;
  }
  if (model === null) throw new ConfigError('AI_MODEL', 'is required when AI_BASE_URL is set');
  return { baseUrl, apiKey, model, timeoutMs };
}
