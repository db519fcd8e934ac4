import { sql } from 'kysely';
import { chancesOfOffsets, makerResults } from '../../exchange/house.js';
import { openingLossBoundCents } from '../../exchange/lmsr.js';
import { PAYOUT_CENTS } from '../../exchange/money.js';
import { payoutPerShare, yesPayoutOf } from '../../exchange/positions.js';
import type { Queryable } from '../../platform/db/types.js';

export interface InvariantResult {
  invariant: string;
  ok: boolean;
  violations: string[];
}

/**
 * The money invariants of the exchange, checked against the database itself. Each check returns the
 * offending rows (at most 20), so a failure says exactly where the books are wrong.
 */
export class AuditRepository {
  async run(db: Queryable): Promise<InvariantResult[]> {
    return [
      await this.postingsBalance(db),
      await this.noNegativeUserBalances(db),
      await this.sharesMatchEscrow(db),
      await this.reservedMatchesOpenOrders(db),
      await this.transitMatchesHoldsAndReturns(db),
      await this.conversionPoolsHoldCompleteSets(db),
      await this.houseLossBounded(db),
      await this.referencesPointAtRows(db),
      await this.traderTotalsMatchRows(db),
    ];
  }

  /**
   * The totals the database keeps per trader (trader_totals, by triggers on every statement that writes trades,
   * positions and settlements) equal the sums over those rows, which the leaderboard, profiles and badges read.
   */
  private async traderTotalsMatchRows(db: Queryable): Promise<InvariantResult> {
    const rows = await sql<{ user_id: number; kept: string; summed: string }>`
      WITH summed AS (
        SELECT user_id, sum(trades) AS trades, sum(volume) AS volume, sum(pnl) AS pnl, sum(results) AS results,
          sum(wins) AS wins
        FROM (
          SELECT user_id, count(*) AS trades, sum(quantity * price_cents) AS volume, 0 AS pnl, 0 AS results, 0 AS wins
          FROM trades GROUP BY user_id
          UNION ALL
          SELECT user_id, 0, 0, sum(realized_pnl_cents), count(*) FILTER (WHERE realized_pnl_cents <> 0), 0
          FROM positions GROUP BY user_id
          UNION ALL
          SELECT user_id, 0, 0, 0, 0, count(*) FROM position_settlements
          WHERE outcome = side AND quantity > 0 GROUP BY user_id
        ) parts GROUP BY user_id
      )
      SELECT coalesce(k.user_id, s.user_id) AS user_id,
        concat_ws('/', k.trades, k.volume_cents, k.realized_pnl_cents, k.positions_with_result,
          k.winning_predictions) AS kept,
        concat_ws('/', s.trades, s.volume, s.pnl, s.results, s.wins) AS summed
      FROM trader_totals k FULL JOIN summed s ON s.user_id = k.user_id
      WHERE (coalesce(k.trades, 0), coalesce(k.volume_cents, 0), coalesce(k.realized_pnl_cents, 0),
          coalesce(k.positions_with_result, 0), coalesce(k.winning_predictions, 0))
        IS DISTINCT FROM (coalesce(s.trades, 0), coalesce(s.volume, 0), coalesce(s.pnl, 0), coalesce(s.results, 0),
          coalesce(s.wins, 0))
      LIMIT 20`.execute(db);
    const violations = rows.rows.map(
      (r) => `user ${r.user_id}: kept ${r.kept || 'nothing'}, rows sum to ${r.summed || 'nothing'}`,
    );
    return {
      invariant:
        "8. each trader's kept totals (trades, volume, realized profit, results, wins) equal their rows",
      ok: !violations.length,
      violations,
    };
  }

  /**
   * The references the database checks once per statement (`statement_references`, see migration 110), checked
   * again over every row: none points at a row that does not exist.
   */
  private async referencesPointAtRows(db: Queryable): Promise<InvariantResult> {
    const references = await sql<{
      name: string;
      table_name: string;
      column_name: string;
      referenced_table: string;
    }>`
      SELECT name, table_name, column_name, referenced_table FROM statement_references ORDER BY name`.execute(
      db,
    );
    const violations: string[] = [];
    for (const r of references.rows) {
      const column = sql.ref(`c.${r.column_name}`);
      const dangling = await sql<{ id: number; points_at: number }>`
        SELECT c.id, ${column} AS points_at FROM ${sql.table(r.table_name)} c
        WHERE ${column} IS NOT NULL
          AND NOT EXISTS (SELECT FROM ${sql.table(r.referenced_table)} p WHERE p.id = ${column})
        LIMIT 20`.execute(db);
      for (const row of dangling.rows)
        violations.push(
          `${r.table_name} ${row.id}: ${r.column_name} ${row.points_at} is not in ${r.referenced_table}`,
        );
    }
    return {
      invariant: '7. every reference points at a row that exists',
      ok: !violations.length,
      violations: violations.slice(0, 20),
    };
  }

  private async postingsBalance(db: Queryable): Promise<InvariantResult> {
    const unbalanced = await sql<{ entry_id: number; total: number }>`
      SELECT entry_id, sum(amount)::bigint AS total FROM postings GROUP BY entry_id HAVING sum(amount) <> 0 LIMIT 20`.execute(
      db,
    );
    const total = await sql<{
      total: number | null;
    }>`SELECT coalesce(sum(amount), 0)::bigint AS total FROM postings`.execute(db);
    const drift = await sql<{ id: number; kind: string; balance: number; posted: number }>`
      SELECT a.id, a.kind, a.balance, coalesce(p.posted, 0)::bigint AS posted
      FROM ledger_accounts a
      LEFT JOIN (SELECT account_id, sum(amount) AS posted FROM postings GROUP BY account_id) p ON p.account_id = a.id
      WHERE a.balance IS NOT NULL AND a.balance <> coalesce(p.posted, 0) LIMIT 20`.execute(db);
    const violations = [
      ...unbalanced.rows.map((r) => `journal entry ${r.entry_id} postings sum to ${r.total}`),
      ...(Number(total.rows[0]?.total ?? 0) !== 0 ? [`all postings sum to ${total.rows[0]?.total}`] : []),
      ...drift.rows.map(
        (r) => `account ${r.id} (${r.kind}) caches ${r.balance} but its postings sum to ${r.posted}`,
      ),
    ];
    return {
      invariant: '1. postings sum to zero and every balance an account keeps equals its postings',
      ok: !violations.length,
      violations,
    };
  }

  private async noNegativeUserBalances(db: Queryable): Promise<InvariantResult> {
    const rows = await sql<{ id: number; kind: string; user_id: number; balance: number }>`
      SELECT a.id, a.kind, a.user_id, coalesce(a.balance, p.posted, 0)::bigint AS balance
      FROM ledger_accounts a
      LEFT JOIN (SELECT account_id, sum(amount) AS posted FROM postings GROUP BY account_id) p ON p.account_id = a.id
      WHERE a.kind IN ('cash', 'reserved', 'transit') AND coalesce(a.balance, p.posted, 0) < 0 LIMIT 20`.execute(
      db,
    );
    const violations = rows.rows.map((r) => `user ${r.user_id} ${r.kind} is ${r.balance}`);
    return {
      invariant: '2. no user cash, reserved or transit balance is negative',
      ok: !violations.length,
      violations,
    };
  }

  private async sharesMatchEscrow(db: Queryable): Promise<InvariantResult> {
    const rows = await sql<{
      id: number;
      status: string;
      pairs: number;
      yes: number;
      no: number;
      escrow: number;
    }>`
      SELECT o.id, e.status, (o.pairs_minted - o.pairs_merged)::bigint AS pairs,
             (o.amm_yes_shares + coalesce(y.q, 0)
               + CASE WHEN e.status = 'settled' THEN 0 ELSE o.pool_yes_shares END)::bigint AS yes,
             (o.amm_no_shares + coalesce(n.q, 0)
               + CASE WHEN e.status = 'settled' THEN 0 ELSE o.pool_no_shares END)::bigint AS no,
             coalesce(a.balance, 0)::bigint AS escrow
      FROM options o
      JOIN events e ON e.id = o.event_id
      LEFT JOIN (SELECT option_id, sum(quantity) AS q FROM positions WHERE side = 'YES' GROUP BY option_id) y ON y.option_id = o.id
      LEFT JOIN (SELECT option_id, sum(quantity) AS q FROM positions WHERE side = 'NO' GROUP BY option_id) n ON n.option_id = o.id
      LEFT JOIN ledger_accounts a ON a.kind = 'escrow' AND a.option_id = o.id`.execute(db);
    const violations: string[] = [];
    for (const r of rows.rows) {
      if (r.status === 'settled') {
        if (Number(r.yes) !== 0 || Number(r.no) !== 0 || Number(r.escrow) !== 0) {
          violations.push(`settled option ${r.id} still has YES ${r.yes}, NO ${r.no}, escrow ${r.escrow}`);
        }
      } else if (
        Number(r.yes) !== Number(r.pairs) ||
        Number(r.no) !== Number(r.pairs) ||
        Number(r.escrow) !== 100 * Number(r.pairs)
      ) {
        violations.push(`option ${r.id}: pairs ${r.pairs}, YES ${r.yes}, NO ${r.no}, escrow ${r.escrow}`);
      }
      if (violations.length >= 20) break;
    }
    return {
      invariant:
        '3. per option YES = NO = pairs minted − merged (holders, house maker and conversion pool), escrow = 100 × ' +
        'pairs (zero once settled)',
      ok: !violations.length,
      violations,
    };
  }

  /**
   * A user's transit account is made of the holds set aside for their requests on the way to a market and the
   * returns markets gave back to them (src/exchange/collateral.ts): its postings sum to exactly those rows.
   */
  private async transitMatchesHoldsAndReturns(db: Queryable): Promise<InvariantResult> {
    const rows = await sql<{ user_id: number; posted: number; rows: number }>`
      SELECT a.user_id, coalesce(p.posted, 0)::bigint AS posted, (coalesce(h.total, 0) + coalesce(r.total, 0))::bigint AS rows
      FROM ledger_accounts a
      LEFT JOIN (SELECT account_id, sum(amount) AS posted FROM postings GROUP BY account_id) p ON p.account_id = a.id
      LEFT JOIN (SELECT user_id, sum(amount_cents) AS total FROM collateral_holds GROUP BY user_id) h ON h.user_id = a.user_id
      LEFT JOIN (SELECT user_id, sum(amount_cents) AS total FROM collateral_returns GROUP BY user_id) r ON r.user_id = a.user_id
      WHERE a.kind = 'transit' AND coalesce(p.posted, 0) <> coalesce(h.total, 0) + coalesce(r.total, 0)
      LIMIT 20`.execute(db);
    const violations = rows.rows.map(
      (r) => `user ${r.user_id} transit posted ${r.posted} but holds and returns make ${r.rows}`,
    );
    return {
      invariant: "4b. each user's transit account equals their collateral holds and returns",
      ok: !violations.length,
      violations,
    };
  }

  private async reservedMatchesOpenOrders(db: Queryable): Promise<InvariantResult> {
    const cash = await sql<{ user_id: number; reserved: number; collateral: number }>`
      SELECT a.user_id, coalesce(p.posted, 0)::bigint AS reserved, coalesce(o.collateral, 0)::bigint AS collateral
      FROM ledger_accounts a
      LEFT JOIN (SELECT account_id, sum(amount) AS posted FROM postings GROUP BY account_id) p ON p.account_id = a.id
      LEFT JOIN (SELECT user_id, sum(reserved_cents) AS collateral FROM orders
                 WHERE status IN ('open', 'partially_filled') GROUP BY user_id) o ON o.user_id = a.user_id
      WHERE a.kind = 'reserved' AND coalesce(p.posted, 0) <> coalesce(o.collateral, 0) LIMIT 20`.execute(db);
    const buys = await sql<{ id: number; reserved_cents: number; expected: number }>`
      SELECT id, reserved_cents, (price_cents * (quantity - filled_quantity))::bigint AS expected FROM orders
      WHERE status IN ('open', 'partially_filled') AND action = 'BUY'
        AND reserved_cents <> price_cents * (quantity - filled_quantity) LIMIT 20`.execute(db);
    const shares = await sql<{
      user_id: number;
      option_id: number;
      side: string;
      reserved: number;
      selling: number;
    }>`
      SELECT p.user_id, p.option_id, p.side, p.reserved_quantity AS reserved, coalesce(s.q, 0)::bigint AS selling
      FROM positions p
      LEFT JOIN (SELECT user_id, option_id, side, sum(quantity - filled_quantity) AS q FROM orders
                 WHERE status IN ('open', 'partially_filled') AND action = 'SELL'
                 GROUP BY user_id, option_id, side) s
        ON s.user_id = p.user_id AND s.option_id = p.option_id AND s.side = p.side
      WHERE p.reserved_quantity <> coalesce(s.q, 0) LIMIT 20`.execute(db);
    const violations = [
      ...cash.rows.map(
        (r) => `user ${r.user_id} reserved ${r.reserved} but open orders hold ${r.collateral}`,
      ),
      ...buys.rows.map((r) => `order ${r.id} holds ${r.reserved_cents} but its rest needs ${r.expected}`),
      ...shares.rows.map(
        (r) =>
          `user ${r.user_id} option ${r.option_id} ${r.side}: ${r.reserved} shares reserved, ${r.selling} offered`,
      ),
    ];
    return {
      invariant: "4. each user's reserved equals the collateral of their open orders",
      ok: !violations.length,
      violations,
    };
  }

  /**
   * An exclusive event's conversion pool holds complete sets (as many YES, or as many NO, of every option), and its
   * account stands at minus what they cost (100 a YES set, (n − 1) × 100 a NO set), plus, once settled, what they
   * paid.
   */
  private async conversionPoolsHoldCompleteSets(db: Queryable): Promise<InvariantResult> {
    const rows = await sql<{
      id: number;
      status: string;
      yes: number[];
      no: number[];
      resolutions: (string | null)[];
      payouts: (number | null)[];
      balance: number | null;
    }>`
      SELECT e.id, e.status, array_agg(o.pool_yes_shares ORDER BY o.id) AS yes,
        array_agg(o.pool_no_shares ORDER BY o.id) AS no, array_agg(o.resolution ORDER BY o.id) AS resolutions,
        array_agg(o.yes_payout_cents ORDER BY o.id) AS payouts,
        (SELECT balance FROM ledger_accounts a WHERE a.kind = 'conversion' AND a.event_id = e.id) AS balance
      FROM events e JOIN options o ON o.event_id = e.id
      WHERE e.exclusive GROUP BY e.id, e.status ORDER BY e.id`.execute(db);
    const violations: string[] = [];
    for (const r of rows.rows) {
      const yes = r.yes.map(Number);
      const no = r.no.map(Number);
      const [yesSets = 0, noSets = 0] = [yes[0], no[0]];
      const n = yes.length;
      if (yes.some((q) => q !== yesSets) || no.some((q) => q !== noSets) || Math.min(yesSets, noSets) > 0) {
        violations.push(
          `event ${r.id}: the conversion pool holds YES ${yes.join('/')} and NO ${no.join('/')}`,
        );
        continue;
      }
      let expected = -PAYOUT_CENTS * yesSets - PAYOUT_CENTS * (n - 1) * noSets;
      if (r.status === 'settled')
        r.resolutions.forEach((resolution, index) => {
          const yes = r.payouts[index] ?? yesPayoutOf((resolution ?? 'VOID') as 'YES' | 'NO' | 'VOID');
          expected += yesSets * payoutPerShare('YES', yes) + noSets * payoutPerShare('NO', yes);
        });
      if (Number(r.balance ?? 0) !== expected)
        violations.push(
          `event ${r.id}: the conversion pool's account is ${r.balance}, its sets say ${expected}`,
        );
      if (violations.length >= 20) break;
    }
    return {
      invariant:
        "5. each exclusive event's conversion pool holds complete sets, its account at what they cost",
      ok: !violations.length,
      violations,
    };
  }

  /**
   * The house maker's cash per option adds up to its account, and in every market not yet settled it can lose at
   * most what the LMSR bounds: b·ln(1 / the smallest chance it opened at), whatever the outcome.
   */
  private async houseLossBounded(db: Queryable): Promise<InvariantResult> {
    const total = await sql<{ cash: number | null; balance: number | null }>`
      SELECT (SELECT sum(amm_cash_cents) FROM options)::bigint AS cash,
        (SELECT coalesce(sum(p.amount), 0) FROM postings p
          JOIN ledger_accounts a ON a.id = p.account_id WHERE a.kind = 'amm')::bigint AS balance`.execute(db);
    const violations: string[] = [];
    const { cash, balance } = total.rows[0] ?? { cash: 0, balance: 0 };
    if (Number(cash ?? 0) !== Number(balance ?? 0))
      violations.push(`the house maker's account is ${balance} but its options' cash adds up to ${cash}`);
    const rows = await sql<{
      market: string;
      exclusive: boolean;
      liquidity: number;
      offsets: number[];
      cash: number[];
      yes: number[];
      no: number[];
    }>`
      SELECT CASE WHEN e.exclusive THEN 'event ' || e.id ELSE 'option ' || o.id END AS market, e.exclusive,
        max(CASE WHEN e.exclusive THEN e.liquidity_b ELSE o.liquidity_b END) AS liquidity,
        array_agg(o.amm_offset ORDER BY o.id) AS offsets, array_agg(o.amm_cash_cents ORDER BY o.id) AS cash,
        array_agg(o.amm_yes_shares ORDER BY o.id) AS yes, array_agg(o.amm_no_shares ORDER BY o.id) AS no
      FROM options o JOIN events e ON e.id = o.event_id
      WHERE e.status <> 'settled'
      GROUP BY 1, 2
      HAVING max(CASE WHEN e.exclusive THEN e.liquidity_b ELSE o.liquidity_b END) > 0`.execute(db);
    for (const r of rows.rows) {
      const liquidity = Number(r.liquidity);
      const books = r.cash.map((c, i) => ({
        cashCents: Number(c),
        yesShares: Number(r.yes[i]),
        noShares: Number(r.no[i]),
      }));
      const offsets = r.offsets.map(Number);
      // An independent option's maker is the two-outcome LMSR of its YES against its NO.
      const chances = chancesOfOffsets(liquidity, r.exclusive ? offsets : [offsets[0] ?? 0, 0]);
      const bound = openingLossBoundCents(liquidity, chances);
      const worst = Math.min(...makerResults(books, r.exclusive));
      if (worst < -bound - 1e-6 * liquidity)
        violations.push(
          `${r.market}: the house maker could lose ${-worst} cents, more than its bound ${bound.toFixed(0)}`,
        );
      if (violations.length >= 20) break;
    }
    return {
      invariant:
        "6. the house maker's cash adds up, and in no market can it lose more than b·ln(1 / its smallest opening chance)",
      ok: !violations.length,
      violations,
    };
  }
}
