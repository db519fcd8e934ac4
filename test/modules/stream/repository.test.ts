import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamRepository } from '../../../src/modules/stream/repository.js';
import { createTestDatabase, type TestDatabase } from '../../support/app.js';

/** Notifications queued in one statement, on PGlite and on PostgreSQL (TEST_DATABASE_URL). */
let t: TestDatabase;
const CHANNEL = 'stream_repository_test';

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

async function delivered(payloads: string[]): Promise<string[]> {
  const received: string[] = [];
  const stop = await t.database.listen(CHANNEL, (payload) => received.push(payload));
  try {
    await t.database.db
      .transaction()
      .execute((trx) => new StreamRepository().notifyMany(trx, CHANNEL, payloads));
    for (let waited = 0; received.length < payloads.length && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return received;
  } finally {
    await stop();
  }
}

describe('notifications queued together', () => {
  it('arrive in order, each exactly as given: JSON with quotes, backslashes, escapes and any script', async () => {
    const payloads = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        i,
        said: `"quoted" \\ back\\slash ${'é€😀'.slice(0, i % 4)}`,
        line: 'one\ntwo',
        empty: '',
      }),
    );
    expect(await delivered(payloads)).toEqual(payloads);
  });

  it('arrive in order when a payload holds a line break, or is empty', async () => {
    const payloads = ['first\nsecond', '', '{"a":1}', 'tab\there, "quote" and \\', '\n'];
    expect(await delivered(payloads)).toEqual(payloads);
  });
});
