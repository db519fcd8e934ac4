import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { CollateralRepository } from '../../../src/modules/ledger/collateral-repository.js';
import type { LedgerRepository } from '../../../src/modules/ledger/repository.js';
import { CollateralDesk } from '../../../src/modules/trading/collateral.js';
import type { DB } from '../../../src/platform/db/schema.js';

/** A desk whose repository fails every release with `failure`, and says which holds it was asked to give back. */
function deskFailingWith(failure: unknown) {
  const asked: number[][] = [];
  const collateral = {
    releaseHolds: async (_db: unknown, ids: number[] | null) => {
      asked.push(ids ?? []);
      throw failure;
    },
  } as unknown as CollateralRepository;
  const desk = new CollateralDesk({} as Kysely<DB>, collateral, {} as LedgerRepository, {
    holdLifetimeMs: 60_000,
  });
  return { desk, asked };
}

describe('the collateral desk giving holds back', () => {
  it('leaves holds to expire when the database cannot take the release (its disk full, read-only, down)', async () => {
    for (const code of ['53100', '25006', '57P01']) {
      const { desk, asked } = deskFailingWith(Object.assign(new Error('refused'), { code }));
      await expect(desk.release([7, 8])).resolves.toBeUndefined();
      expect(asked).toEqual([[7, 8]]);
    }
  });

  it('fails loudly on any other error, and asks nothing for no holds', async () => {
    const { desk, asked } = deskFailingWith(new TypeError('a bug'));
    await expect(desk.release([1])).rejects.toThrow('a bug');
    await expect(desk.release([])).resolves.toBeUndefined();
    expect(asked).toEqual([[1]]);
  });
});
