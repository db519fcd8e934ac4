import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/harness.js';
import { clusterOf } from '../../scripts/lib/pg-cluster.js';
import { TEST_DATABASE_URL } from '../support/app.js';

const hasClusters = spawnSync('pg_lsclusters', ['-h']).status === 0;

/** `npm run fault-test` restarts only the PostgreSQL its URL points at, or says why it will not. */
describe('the PostgreSQL the fault test may restart', () => {
  it('is never one on another machine', async () => {
    expect(await clusterOf('postgres://postgres@db.example.com:5432/test')).toEqual({
      refusal: expect.stringContaining('it points at db.example.com, not this machine'),
    });
  });

  it.skipIf(!hasClusters)('is none when no cluster of this machine listens on the port', async () => {
    const port = await freePort();
    expect(await clusterOf(`postgres://postgres@127.0.0.1:${port}/test`)).toEqual({
      refusal: expect.stringContaining(`no cluster of this machine listens on port ${port}`),
    });
  });

  it.skipIf(!hasClusters || !TEST_DATABASE_URL)(
    'is the cluster on the URL’s port, confirmed by the data directory it serves',
    async () => {
      const port = Number(new URL(TEST_DATABASE_URL as string).port || 5432);
      const found = await clusterOf(TEST_DATABASE_URL as string);
      expect(found).toMatchObject({ port, version: expect.any(String), name: expect.any(String) });
    },
  );
});
