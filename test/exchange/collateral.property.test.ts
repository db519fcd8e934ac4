import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdCollateral } from '../../src/exchange/collateral.js';
import type { Instruction } from '../../src/exchange/decision.js';
import { normaliseEntry } from '../../src/exchange/ledger.js';
import { isResting } from '../../src/exchange/orders.js';
import { settleOption } from '../../src/exchange/settlement.js';
import { OPTION_ID, World } from './world.js';

const USERS = [1, 2, 3];

describe('collateral: one step', () => {
  it('sets needs aside in order, refuses exactly those the cash left cannot cover, and creates or loses nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ user: fc.constantFrom(...USERS), cash: fc.nat(5_000) }), { maxLength: 3 }),
        fc.array(fc.record({ user: fc.constantFrom(...USERS), back: fc.nat(2_000) }), { maxLength: 3 }),
        fc.array(
          fc.record({
            user: fc.constantFrom(...USERS),
            needs: fc.array(fc.nat(3_000), { maxLength: 5 }),
          }),
          { maxLength: 6 },
        ),
        (cashRows, backRows, claimRows) => {
          const cash = new Map(cashRows.map(({ user, cash }) => [user, cash]));
          const returned = new Map(backRows.map(({ user, back }) => [user, back]));
          const claims = claimRows.map(({ user, needs }) => ({
            userId: user,
            needs: needs.map((cents) => ({ cents })),
          }));
          const step = holdCollateral(cash, returned, claims);
          const left = new Map(USERS.map((u) => [u, (cash.get(u) ?? 0) + (returned.get(u) ?? 0)]));
          const held = new Map(USERS.map((u) => [u, 0]));
          for (const [c, claim] of claims.entries()) {
            for (const [n, need] of claim.needs.entries()) {
              const verdict = step.verdicts[c]?.[n];
              const available = left.get(claim.userId) as number;
              if (need.cents > available) {
                expect(verdict).toEqual({ refused: { neededCents: need.cents, availableCents: available } });
                continue;
              }
              expect(verdict).toEqual({ held: need.cents });
              left.set(claim.userId, available - need.cents);
              held.set(claim.userId, (held.get(claim.userId) as number) + need.cents);
            }
          }
          for (const user of USERS) {
            const after = step.cashAfter.get(user) ?? 0;
            expect(after).toBeGreaterThanOrEqual(0);
            expect(after + (held.get(user) as number)).toBe(
              (cash.get(user) ?? 0) + (returned.get(user) ?? 0),
            );
            // The entries move exactly that between the user's cash and transit accounts, and balance.
            const moved = step.entries
              .filter((entry) => entry.userId === user)
              .flatMap((entry) => normaliseEntry(entry).postings)
              .filter((posting) => posting.account.kind === 'cash')
              .reduce((sum, posting) => sum + posting.amount, 0);
            expect(moved).toBe(after - (cash.get(user) ?? 0));
          }
        },
      ),
    );
  });
});

/** A request on its way: set aside (held), not decided yet. */
interface Pending {
  userId: number;
  instruction: Instruction;
  held: number;
}

/**
 * The exchange as the service runs it, steps interleaved in any order: a user's collateral step sets a request's
 * worst case aside (or refuses it), its market decides it later, what markets give back waits in transit until the
 * user's next step takes it back, and expiries and a settlement come in between.
 */
class Interleaved {
  readonly world = new World(null, 0);
  readonly pending: Pending[] = [];
  settled = false;

  constructor() {
    for (const user of USERS) this.world.fund(user, 20_000);
  }

  /** A user's collateral step for one request: taken back what markets gave, the request's worst case held. */
  request(userId: number, instruction: Instruction): void {
    const need = this.world.worstCaseOf(userId, instruction);
    const returned = this.returnedTo(userId);
    const step = holdCollateral(
      new Map([[userId, this.world.balance({ kind: 'cash', userId })]]),
      new Map(returned > 0 ? [[userId, returned]] : []),
      [{ userId, needs: [need] }],
    );
    for (const entry of step.entries) this.world.post(entry);
    const verdict = step.verdicts[0]?.[0];
    if (verdict && 'held' in verdict) this.pending.push({ userId, instruction, held: verdict.held });
  }

  /** A market decides a pending request with what was held for it. */
  decide(at: number): void {
    const [next] = this.pending.splice(at % this.pending.length, 1);
    if (next) this.world.decideWith(next.userId, next.instruction, next.held);
  }

  /** The option settles as YES: every holder, the house and the pool paid out of escrow into transit. */
  settle(): void {
    const holders = [...this.world.positions]
      .filter(([, position]) => position.quantity > 0)
      .map(([key, position]) => {
        const [userId, , side] = key.split(':');
        return { userId: Number(userId), side: side as 'YES' | 'NO', position };
      });
    for (const order of this.world.openOrders())
      this.world.decideWith(order.userId, { type: 'expire', optionId: OPTION_ID, orderId: order.id }, 0);
    const settled = settleOption({
      optionId: OPTION_ID,
      eventId: 1,
      label: 'x',
      outcome: 'YES',
      yesPayoutCents: 100,
      holders,
      house: { yesShares: 0, noShares: 0 },
      pool: { yesShares: 0, noShares: 0 },
    });
    this.world.post(settled.entry);
    for (const { userId, side, state } of settled.positions)
      this.world.positions.set(`${userId}:${OPTION_ID}:${side}`, state);
    this.settled = true;
  }

  /** A user's collateral step with nothing to hold: what markets gave back taken into cash. */
  claim(userId: number): void {
    const returned = this.returnedTo(userId);
    const cash = new Map([[userId, this.world.balance({ kind: 'cash', userId })]]);
    for (const entry of holdCollateral(cash, new Map([[userId, returned]]), []).entries)
      this.world.post(entry);
  }

  /** What a user's transit account holds beyond the pending requests' holds: what markets gave back. */
  returnedTo(userId: number): number {
    const held = this.pending.filter((p) => p.userId === userId).reduce((sum, p) => sum + p.held, 0);
    return this.world.balance({ kind: 'transit', userId }) - held;
  }

  /** What a user owns in money: cash, transit and the collateral of their resting orders. */
  money(userId: number): number {
    return ['cash', 'transit', 'reserved'].reduce(
      (sum, kind) => sum + this.world.balance({ kind: kind as 'cash', userId }),
      0,
    );
  }
}

const orderOf = fc.record({
  user: fc.constantFrom(...USERS),
  side: fc.constantFrom('YES' as const, 'NO' as const),
  action: fc.constantFrom('BUY' as const, 'SELL' as const),
  price: fc.integer({ min: 1, max: 99 }),
  quantity: fc.integer({ min: 1, max: 40 }),
  tif: fc.constantFrom('GTC' as const, 'IOC' as const, 'FOK' as const, 'GTD' as const),
});

const step = fc.oneof(
  orderOf.map((order) => ({ type: 'place' as const, order })),
  fc.record({ type: fc.constant('decide' as const), at: fc.nat() }),
  fc.record({ type: fc.constant('cancel' as const), at: fc.nat() }),
  fc.record({ type: fc.constant('amend' as const), at: fc.nat(), quantity: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ type: fc.constant('expire' as const), at: fc.nat() }),
  fc.record({ type: fc.constant('claim' as const), user: fc.constantFrom(...USERS) }),
  fc.record({ type: fc.constant('settle' as const) }),
);

describe('collateral: requests held, decided, given back and settled in any order', () => {
  it('creates or loses nothing, never goes negative, and keeps transit equal to the holds and what came back', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const x = new Interleaved();
        for (const s of steps) {
          if (x.settled) break;
          const owned = USERS.map((user) => x.money(user));
          const decides = s.type === 'decide' || s.type === 'settle';
          apply(x, s);
          // A collateral step moves a user's money between their own accounts, never makes or takes any.
          if (!decides) expect(USERS.map((user) => x.money(user))).toEqual(owned);
          for (const user of USERS) {
            expect(x.world.balance({ kind: 'cash', userId: user })).toBeGreaterThanOrEqual(0);
            // The transit account always covers the holds of requests on their way, and no more than what came back.
            expect(x.returnedTo(user)).toBeGreaterThanOrEqual(0);
            const resting = x.world
              .openOrders()
              .filter((o) => o.userId === user && isResting(o))
              .reduce((sum, o) => sum + o.reservedCents, 0);
            expect(x.world.balance({ kind: 'reserved', userId: user })).toBe(resting);
          }
          const escrow = x.world.balance({ kind: 'escrow', optionId: OPTION_ID });
          if (x.settled) expect(escrow).toBe(0);
          else expect(escrow).toBe(100 * (x.world.pairsMinted - x.world.pairsMerged));
        }
      }),
      { numRuns: 200 },
    );
  });
});

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

/** Takes one step of the interleaving. */
function apply(x: Interleaved, s: Step): void {
  const open = x.world.openOrders();
  if (s.type === 'place') {
    const { user, side, action, price, quantity, tif } = s.order;
    x.request(user, {
      type: 'place',
      order: {
        id: x.world.takeId(),
        optionId: OPTION_ID,
        userId: user,
        kind: 'limit',
        side,
        action,
        quantity,
        priceCents: price,
        timeInForce: tif,
        postOnly: false,
        expiresAt: tif === 'GTD' ? new Date(86_400_000) : null,
        clientOrderId: null,
        placedBy: null,
      },
    });
  } else if (s.type === 'decide') {
    if (x.pending.length > 0) x.decide(s.at);
  } else if (s.type === 'claim') x.claim(s.user);
  else if (s.type === 'settle') x.settle();
  else {
    const order = open[s.at % Math.max(1, open.length)];
    if (!order) return;
    const { id: orderId, userId } = order;
    if (s.type === 'cancel') x.request(userId, { type: 'cancel', optionId: OPTION_ID, orderId, userId });
    else if (s.type === 'expire') x.request(userId, { type: 'expire', optionId: OPTION_ID, orderId });
    else
      x.request(userId, {
        type: 'amend',
        optionId: OPTION_ID,
        orderId,
        userId,
        remainingQuantity: s.quantity,
        priceCents: null,
        replacement: { id: x.world.takeId(), clientOrderId: null, placedBy: null },
      });
  }
}
