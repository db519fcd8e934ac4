import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { houseMoves, houseQuotes } from '../../src/exchange/ladder.js';
import type { AmmState } from '../../src/exchange/lmsr.js';

/**
 * The levels a decision announces for the house maker: exactly those whose quoted quantity differs between the
 * maker before and after (a level quoted on one side only counts), whatever the two states.
 */

const maker: fc.Arbitrary<AmmState | null> = fc.option(
  fc.record({
    liquidityCents: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500_000 })),
    offset: fc.integer({ min: -2_000, max: 2_000 }),
    yesShares: fc.integer({ min: 0, max: 3_000 }),
    noShares: fc.integer({ min: 0, max: 3_000 }),
    shift: fc.option(fc.integer({ min: -1_000, max: 1_000 }), { nil: undefined }),
  }),
  { nil: null, freq: 8 },
);

/** What moved, by the definition: every level either state quotes, where the two quantities differ. */
function movedByQuotes(before: AmmState | null, after: AmmState | null): string[] {
  const was = houseQuotes(before);
  const is = houseQuotes(after);
  return [...new Set([...was.keys(), ...is.keys()])].filter((key) => was.get(key) !== is.get(key)).sort();
}

describe('the house maker’s moved levels', () => {
  it('are the levels whose quoted quantity differs, for any two states', () => {
    fc.assert(
      fc.property(maker, maker, (before, after) => {
        expect([...houseMoves(before, after)].sort()).toEqual(movedByQuotes(before, after));
      }),
      { numRuns: 500 },
    );
  });

  it('are those of a maker that traded, and none for a maker that did not', () => {
    fc.assert(
      fc.property(
        maker.filter((state) => state !== null),
        fc.integer({ min: -200, max: 200 }),
        (before, traded) => {
          const state = before as AmmState;
          const after = {
            ...state,
            yesShares: state.yesShares + Math.max(0, traded),
            noShares: state.noShares - Math.min(0, traded),
          };
          expect([...houseMoves(state, after)].sort()).toEqual(movedByQuotes(state, after));
          expect(houseMoves(state, { ...state })).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
