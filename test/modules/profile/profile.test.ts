import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';
import { FakeS3 } from '../../support/fake-s3.js';

let t: TestApp;
let avatarDir: string;

beforeAll(async () => {
  avatarDir = await mkdtemp(join(tmpdir(), 'avatars-'));
  t = await createTestApp({ env: { AVATAR_DIR: avatarDir, PUBLIC_URL: 'https://exchange.example' } });
});
afterAll(async () => {
  await t.close();
  await rm(avatarDir, { recursive: true, force: true });
});

const getPreferences = (user: TestUser) =>
  t.app.inject({ url: '/api/me/preferences', headers: bearer(user.token) });
const patchPreferences = (user: TestUser, payload: unknown) =>
  t.app.inject({
    method: 'PATCH',
    url: '/api/me/preferences',
    headers: bearer(user.token),
    payload: payload as object,
  });

describe('GET/PATCH /api/me/preferences', () => {
  it('needs authentication', async () => {
    expect((await t.app.inject({ url: '/api/me/preferences' })).statusCode).toBe(401);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      payload: { darkMode: true },
    });
    expect(patch.statusCode).toBe(401);
  });

  it('gives the defaults to a user who never changed anything', async () => {
    const user = await newUser(t.app);
    const res = await getPreferences(user);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      displayName: null,
      bio: '',
      darkMode: false,
      timezone: null,
      notifications: { trades: true, social: true, competitions: true, marketing: false, newSignIn: true },
      avatarUrl: null,
      updatedAt: null,
    });
  });

  it('changes only the fields sent and returns everything', async () => {
    const user = await newUser(t.app);
    const first = await patchPreferences(user, {
      bio: '  Cricket nerd.  ',
      darkMode: true,
      displayName: 'Ada L.',
    });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ bio: 'Cricket nerd.', darkMode: true, displayName: 'Ada L.' });
    expect(Number.isNaN(Date.parse(first.json().updatedAt))).toBe(false);

    const second = await patchPreferences(user, {
      notifications: { marketing: true, social: false },
      timezone: 'Asia/Kolkata',
    });
    expect(second.json()).toMatchObject({
      bio: 'Cricket nerd.',
      darkMode: true,
      displayName: 'Ada L.',
      timezone: 'Asia/Kolkata',
      notifications: { trades: true, social: false, competitions: true, marketing: true },
    });
    const cleared = await patchPreferences(user, { displayName: null, timezone: null, bio: '' });
    expect(cleared.json()).toMatchObject({ displayName: null, timezone: null, bio: '', darkMode: true });
    expect((await getPreferences(user)).json()).toEqual(cleared.json());
  });

  it('accepts a bio of exactly 280 characters, emoji counted as one', async () => {
    const user = await newUser(t.app);
    const bio = '🏏'.repeat(280);
    const res = await patchPreferences(user, { bio });
    expect(res.statusCode).toBe(200);
    expect(res.json().bio).toBe(bio);
  });

  it.each([
    [{ bio: 'x'.repeat(281) }, 'body.bio'],
    [{ bio: 'nul \u0000 byte' }, 'body.bio'],
    [{ displayName: '' }, 'body.displayName'],
    [{ displayName: '   ' }, 'body.displayName'],
    [{ displayName: 'line\nbreak' }, 'body.displayName'],
    [{ displayName: 'x'.repeat(51) }, 'body.displayName'],
    [{ darkMode: 'yes' }, 'body.darkMode'],
    [{ timezone: 'Mars/Olympus_Mons' }, 'body.timezone'],
    [{ notifications: { sms: true } }, 'body.notifications.sms'],
    [{ notifications: {} }, 'body.notifications'],
    [{ isAdmin: true }, 'body.isAdmin'],
    [{}, 'body'],
  ])('rejects %j with a 400 naming %s', async (payload, field) => {
    const user = await newUser(t.app);
    const res = await patchPreferences(user, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    expect((await getPreferences(user)).json().updatedAt).toBeNull();
  });

  it("one user never sees or changes another user's preferences", async () => {
    const alice = await newUser(t.app);
    const bob = await newUser(t.app);
    await patchPreferences(alice, { bio: 'Alice only', darkMode: true });
    expect((await getPreferences(bob)).json()).toMatchObject({ bio: '', darkMode: false });
    await patchPreferences(bob, { bio: 'Bob here' });
    expect((await getPreferences(alice)).json()).toMatchObject({ bio: 'Alice only', darkMode: true });
  });
});

interface FilePart {
  field?: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

function multipart(parts: FilePart[], fields: Record<string, string> = {}) {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const part of parts) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.field ?? 'file'}"; filename="${part.filename}"\r\n` +
          `Content-Type: ${part.contentType}\r\n\r\n`,
      ),
      part.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

async function upload(user: TestUser, parts: FilePart[], app = t.app) {
  const body = multipart(parts);
  return app.inject({
    method: 'POST',
    url: '/api/me/avatar',
    headers: { ...bearer(user.token), ...body.headers },
    payload: body.payload,
  });
}

const png = (width = 640, height = 480) =>
  sharp({ create: { width, height, channels: 4, background: { r: 20, g: 120, b: 220, alpha: 1 } } })
    .png()
    .toBuffer();

function pathOf(url: string): string {
  return new URL(url, 'http://localhost').pathname;
}

describe('POST /api/me/avatar', () => {
  it('needs authentication', async () => {
    const body = multipart([{ filename: 'a.png', contentType: 'image/png', data: await png() }]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/me/avatar',
      headers: body.headers,
      payload: body.payload,
    });
    expect(res.statusCode).toBe(401);
  });

  it('accepts a real PNG sent as image/jpeg, re-encodes it to a 256×256 WebP and serves it', async () => {
    const user = await newUser(t.app);
    const res = await upload(user, [{ filename: 'me.jpg', contentType: 'image/jpeg', data: await png() }]);
    expect(res.statusCode).toBe(200);
    const { avatarUrl } = res.json();
    // Relative, so the image loads whatever address the site was opened at (PUBLIC_URL is https://exchange.example).
    expect(avatarUrl).toMatch(new RegExp(`^/api/avatars/${user.id}-[0-9a-f]{16}\\.webp$`));

    const served = await t.app.inject({ url: pathOf(avatarUrl) });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/webp');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const meta = await sharp(served.rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 256, height: 256 });

    expect((await getPreferences(user)).json().avatarUrl).toBe(avatarUrl);
  });

  it('strips metadata such as EXIF from the stored image', async () => {
    const user = await newUser(t.app);
    const jpeg = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#884422' } })
      .jpeg()
      .withExif({ IFD0: { Copyright: 'secret-owner', Artist: 'secret-artist' } })
      .toBuffer();
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const res = await upload(user, [{ filename: 'photo.jpeg', contentType: 'image/jpeg', data: jpeg }]);
    expect(res.statusCode).toBe(200);
    const served = await t.app.inject({ url: pathOf(res.json().avatarUrl) });
    const meta = await sharp(served.rawPayload).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(served.rawPayload.includes(Buffer.from('secret-owner'))).toBe(false);
  });

  it.each([
    [
      'gif',
      () =>
        sharp({ create: { width: 40, height: 20, channels: 3, background: '#00ff00' } })
          .gif()
          .toBuffer(),
    ],
    [
      'webp',
      () =>
        sharp({ create: { width: 40, height: 20, channels: 3, background: '#00ff00' } })
          .webp()
          .toBuffer(),
    ],
  ])('accepts a %s image', async (_type, make) => {
    const user = await newUser(t.app);
    const res = await upload(user, [
      { filename: 'x.bin', contentType: 'application/octet-stream', data: await make() },
    ]);
    expect(res.statusCode).toBe(200);
  });

  it('rejects a text file named .png with 415', async () => {
    const user = await newUser(t.app);
    const res = await upload(user, [
      {
        filename: 'avatar.png',
        contentType: 'image/png',
        data: Buffer.from('just some text, not an image\n'),
      },
    ]);
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await getPreferences(user)).json().avatarUrl).toBeNull();
  });

  it('rejects a recognised but unsupported type (a PDF) with 415', async () => {
    const user = await newUser(t.app);
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n');
    const res = await upload(user, [{ filename: 'a.png', contentType: 'image/png', data: pdf }]);
    expect(res.statusCode).toBe(415);
  });

  it('rejects a 3 MB file with 413', async () => {
    const user = await newUser(t.app);
    const big = Buffer.concat([await png(), randomBytes(3 * 1024 * 1024)]);
    const res = await upload(user, [{ filename: 'big.png', contentType: 'image/png', data: big }]);
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('accepts a file of almost 2 MB, far beyond the JSON body limit', async () => {
    const user = await newUser(t.app);
    const noisy = await sharp(randomBytes(820 * 820 * 3), { raw: { width: 820, height: 820, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(noisy.length).toBeGreaterThan(1024 * 1024);
    expect(noisy.length).toBeLessThanOrEqual(2 * 1024 * 1024);
    const res = await upload(user, [{ filename: 'noise.png', contentType: 'image/png', data: noisy }]);
    expect(res.statusCode).toBe(200);
  });

  it('rejects a damaged image with a valid signature with 400', async () => {
    const user = await newUser(t.app);
    const damaged = (await png()).subarray(0, 60);
    const res = await upload(user, [{ filename: 'cut.png', contentType: 'image/png', data: damaged }]);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
  });

  it('rejects a request without a file field with 400 and a JSON body with 415', async () => {
    const user = await newUser(t.app);
    const wrongField = await upload(user, [
      { field: 'image', filename: 'a.png', contentType: 'image/png', data: await png() },
    ]);
    expect(wrongField.statusCode).toBe(400);
    const fieldsOnly = multipart([], { file: 'not a file' });
    const noFile = await t.app.inject({
      method: 'POST',
      url: '/api/me/avatar',
      headers: { ...bearer(user.token), ...fieldsOnly.headers },
      payload: fieldsOnly.payload,
    });
    expect(noFile.statusCode).toBe(400);
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/me/avatar',
      headers: bearer(user.token),
      payload: { file: 'data:image/png;base64,AAAA' },
    });
    expect(json.statusCode).toBe(415);
    expect(json.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('replaces the previous avatar and removes its file', async () => {
    const user = await newUser(t.app);
    const first = (
      await upload(user, [{ filename: 'a.png', contentType: 'image/png', data: await png(100, 100) }])
    ).json();
    const second = (
      await upload(user, [{ filename: 'b.png', contentType: 'image/png', data: await png(90, 120) }])
    ).json();
    expect(second.avatarUrl).not.toBe(first.avatarUrl);
    expect((await t.app.inject({ url: pathOf(first.avatarUrl) })).statusCode).toBe(404);
    expect((await t.app.inject({ url: pathOf(second.avatarUrl) })).statusCode).toBe(200);
    const files = (await readdir(avatarDir)).filter((f) => f.startsWith(`${user.id}-`));
    expect(files).toEqual([pathOf(second.avatarUrl).split('/').pop()]);
  });

  it('is not accepted as multipart by any other route', async () => {
    const user = await newUser(t.app);
    const body = multipart([{ filename: 'a.png', contentType: 'image/png', data: await png(10, 10) }]);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/me/preferences',
      headers: { ...bearer(user.token), ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode).toBe(415);
  });
});

describe('GET /api/avatars/{file}', () => {
  it('answers 404 for an unknown avatar and 400 for a name that is not an avatar key', async () => {
    expect((await t.app.inject({ url: '/api/avatars/1-0123456789abcdef.webp' })).statusCode).toBe(404);
    const traversal = await t.app.inject({ url: '/api/avatars/..%2F..%2Fetc%2Fpasswd' });
    expect(traversal.statusCode).toBe(400);
  });
});

describe('avatars on S3-compatible storage', () => {
  const s3 = new FakeS3();
  let s3App: TestApp;

  beforeAll(async () => {
    const endpoint = await s3.start();
    s3App = await createTestApp({
      env: {
        PUBLIC_URL: 'https://exchange.example',
        S3_BUCKET: 'pmx-avatars',
        S3_ENDPOINT: endpoint,
        S3_REGION: 'us-east-1',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'test-access-key',
        S3_SECRET_ACCESS_KEY: 'test-secret-key',
      },
    });
  });
  afterAll(async () => {
    await s3App.close();
    await s3.stop();
  });

  it('stores signed uploads in the bucket, serves them back and deletes the replaced one', async () => {
    const user = await newUser(s3App.app);
    const first = await upload(
      user,
      [{ filename: 'a.png', contentType: 'image/jpeg', data: await png() }],
      s3App.app,
    );
    expect(first.statusCode).toBe(200);
    const key = pathOf(first.json().avatarUrl).split('/').pop();
    const put = s3.requests.find((r) => r.method === 'PUT');
    expect(put).toMatchObject({ path: `/pmx-avatars/avatars/${key}`, contentType: 'image/webp' });
    expect(put?.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=test-access-key\//);

    const served = await s3App.app.inject({ url: pathOf(first.json().avatarUrl) });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(s3.objects.get(`/pmx-avatars/avatars/${key}`)!.body)).toBe(true);
    expect(await sharp(served.rawPayload).metadata()).toMatchObject({
      format: 'webp',
      width: 256,
      height: 256,
    });

    const second = await upload(
      user,
      [{ filename: 'b.png', contentType: 'image/png', data: await png(50, 50) }],
      s3App.app,
    );
    expect(second.statusCode).toBe(200);
    expect(s3.requests.some((r) => r.method === 'DELETE' && r.path === `/pmx-avatars/avatars/${key}`)).toBe(
      true,
    );
    expect((await s3App.app.inject({ url: pathOf(first.json().avatarUrl) })).statusCode).toBe(404);
  });
});

describe('API documentation', () => {
  it('describes every account-feature endpoint in the OpenAPI document', async () => {
    const res = await t.app.inject({ url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths as Record<string, Record<string, { summary?: string }>>;
    const expected: [string, string][] = [
      ['/api/me/badges', 'get'],
      ['/api/me/xp', 'get'],
      ['/api/me/referral', 'get'],
      ['/api/me/trades/export', 'get'],
      ['/api/me/preferences', 'get'],
      ['/api/me/preferences', 'patch'],
      ['/api/me/avatar', 'post'],
      ['/api/avatars/{file}', 'get'],
      ['/api/me/trade-notes', 'get'],
      ['/api/me/trade-notes', 'post'],
      ['/api/me/trade-notes/{id}', 'delete'],
      ['/api/watchlist', 'get'],
      ['/api/watchlist', 'post'],
      ['/api/watchlist/{event}', 'delete'],
      ['/api/follow/{userId}', 'post'],
      ['/api/follow/{userId}', 'delete'],
      ['/api/me/following', 'get'],
      ['/api/me/followers', 'get'],
    ];
    for (const [path, method] of expected) {
      expect(paths[path]?.[method]?.summary, `${method} ${path}`).toBeTruthy();
    }
  });
});
