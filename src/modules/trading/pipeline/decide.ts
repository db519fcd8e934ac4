import { type BookState, decide, type MarketState } from '../../../exchange/decision.js';
import { sideBySide } from '../../../platform/db/side-by-side.js';
import type { Tx } from '../../../platform/db/types.js';
import type { LedgerRepository } from '../../ledger/repository.js';
import type { BookCache } from '../books.js';
import type { LockedMarket, TradingRepository } from '../repository.js';
import { houseOf } from '../rows.js';
import type { Announcer } from './announce.js';
import type { Answers } from './answer.js';
import type { StepClock } from './step-clock.js';
import type { DecidedWork, HeldWork } from './work.js';
import { readAhead, returnsOf, writeDecisions } from './write.js';

/** What deciding the markets' requests and writing the decisions use. */
export interface DecideParts {
  trading: TradingRepository;
  ledger: LedgerRepository;
  books: BookCache;
  answers: Answers;
  announcer: Announcer;
  takerFeeBps: number;
}

/**
 * Decides each market on its books held in memory, in turn; then writes every decision, answers it and announces
 * it, side by side, in statements shared by all the markets. Nothing the answers and the listeners say waits for
 * the writes to answer: the holders the decisions touched, ids for their fills and trades and what the listeners
 * read are read first, and the book versions the writes leave are known, so every statement goes out with the
 * writes. A failure leaves no book in memory behind.
 */
export async function decideAndWrite(
  trx: Tx,
  parts: DecideParts,
  held: HeldWork[],
  clock?: StepClock,
  writing?: () => void,
): Promise<void> {
  const { books, answers, announcer } = parts;
  const markets = held.map((h) => h.work.market);
  try {
    const deciding = held.filter((h) => h.instructions.length > 0);
    const all = await books.loadMany(
      trx,
      deciding.flatMap((h) => h.work.market.options),
    );
    // API keys' limits span markets: each market's decision goes on from what the one before left them.
    let keys = deciding[0]?.holdings.keys;
    const decided: DecidedWork[] = deciding.map((h) => {
      const state = new Map(h.work.market.options.map((o) => [o.id, all.get(o.id) as BookState]));
      const market = marketState(h.work.market, parts.takerFeeBps);
      const decision = decide(state, market, { ...h.holdings, keys }, h.instructions);
      keys = decision.keys;
      return { ...h, decision };
    });
    const changed = decided.filter((d) => d.decision.changed);
    const ahead = await readAhead(trx, parts.trading, changed, () => announcer.read(trx, changed));
    const { sent, written } = writeDecisions(trx, parts, changed, ahead, returnsOf(decided));
    for (const [optionId, version] of written.bookVersions) books.written(trx, optionId, version);
    clock?.lap('decide_write');
    if (changed.length > 0) writing?.();
    const answered = answers.of(trx, decided, written);
    const announced = changed.length > 0 ? announcer.announce(trx, changed, written) : Promise.resolve();
    clock?.lap('answer');
    const [bookVersions] = await sideBySide([sent, answered, announced] as const);
    // The answers and the listeners were told the versions before the writes answered; should the database have
    // written others (a writer outside the market's lock), the transaction goes no further.
    for (const [optionId, version] of bookVersions)
      if (written.bookVersions.get(optionId) !== version)
        throw new Error(`option ${optionId} written at book version ${version}, not the one announced`);
    clock?.lap('announce');
  } catch (error) {
    for (const market of markets) for (const option of market.options) books.forget(option.id);
    throw error;
  }
}

/** The market as the exchange's decision sees it. */
function marketState(market: LockedMarket, feeBps: number): MarketState {
  const first = market.options[0];
  return {
    closed: closedReason(market),
    conversionsClosed:
      market.eventStatus === 'open' || market.eventStatus === 'closed' ? null : market.eventStatus,
    house: houseOf(market),
    exclusive:
      market.exclusive && first
        ? {
            eventId: market.eventId,
            optionIds: market.options.map((o) => o.id),
            pool: { yesSets: first.pool_yes_shares, noSets: first.pool_no_shares },
            lastYesPrices: new Map(market.options.map((o) => [o.id, o.last_yes_price])),
          }
        : null,
    feeBps,
    now: market.dbNow,
  };
}

/** Why the market takes no orders now, or null when it does. */
function closedReason(market: LockedMarket): string | null {
  if (market.eventStatus !== 'open') return market.eventStatus;
  if (market.closesAt <= market.dbNow) return 'past its closing time';
  return null;
}
