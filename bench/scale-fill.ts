import pg from 'pg';

/**
 * A busy year of an exchange, written straight into a migrated PostgreSQL database with `generate_series` (writing
 * it through the order path would take a year): users, events and their options, orders, fills and their trades,
 * the ledger's journal entries and postings, positions, candles and feed items, consistent with one another so that
 * every invariant of the audit holds.
 *
 * At scale 1: 200,000 users, 5,000 events of 10 options each, 5,000,000 fills (the tape's trades) spread over the
 * last 365 days, each with its two trades (taker and maker), its two filled orders and one journal entry of three
 * postings (the taker's and the maker's cash to the option's escrow: 100 a pair minted), 500,000 cancelled orders,
 * two resting orders of the bot on each option of an open event (with their collateral in its reserved account),
 * 1,000,000 feed items. Every user's starting credit covers what they spent, so each ends with 1,000 of cash.
 *
 * Fills come in runs of 50 on one option (a market is busy for a few minutes, then another), a tenth of the runs on
 * one hot option; user 1 (`scale-1@example.com`) took one fill in each of 1,000 options; user 2, the bot, made a
 * tenth of the fills and holds the resting orders.
 */

export interface BusyYear {
  users: number;
  events: number;
  options: number;
  fills: number;
  orders: number;
  notifications: number;
  /** The trader with 1,000 positions, the bot, and the option with the most trades. */
  traderId: number;
  botId: number;
  hotOptionId: number;
  /** Seconds each step took. */
  steps: [string, number][];
}

export const SCALE_PASSWORD = 'bench password';

/** The counts at a scale (1: the year the case is about). */
export function busyYearSize(scale: number) {
  const events = Math.max(20, Math.round(5_000 * scale));
  return {
    users: Math.max(1_000, Math.round(200_000 * scale)),
    events,
    options: events * 10,
    fills: Math.max(10_000, Math.round(5_000_000 * scale)),
    notifications: Math.max(10_000, Math.round(1_000_000 * scale)),
  };
}

/** The tables the fill writes, whose indexes are built after it (faster than keeping them up row by row). */
const FILLED_TABLES = [
  'users',
  'events',
  'options',
  'orders',
  'fills',
  'trades',
  'journal_entries',
  'postings',
  'positions',
  'candles',
  'notifications',
  'ledger_accounts',
  'trader_totals',
];

const CATEGORIES = ['cricket', 'football', 'politics', 'weather', 'economy', 'technology', 'film', 'tennis'];
const WORDS = [
  'Mumbai',
  'monsoon',
  'rain',
  'election',
  'inflation',
  'final',
  'century',
  'budget',
  'launch',
  'record',
  'derby',
  'premiere',
];

/**
 * Drops the tables' indexes but their keys (other tables' foreign keys need those); returns the statements that
 * make them again.
 */
async function dropIndexes(client: pg.Client): Promise<string[]> {
  const { rows: indexes } = await client.query<{ name: string; def: string }>(
    `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
     WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
       AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [FILLED_TABLES],
  );
  for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
  return indexes.map((index) => index.def);
}

/** The statements of the fill, in order, with the numbers of a scale in them. */
function fillStatements(size: ReturnType<typeof busyYearSize>, passwordHash: string): [string, string][] {
  const { users: U, events: E, options: O, fills: F, notifications: N } = size;
  const K = Math.max(1, Math.floor(F / 1_000));
  const C = Math.round(F / 10);
  const accounts = 1_000;
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}]`;
  const categories = `ARRAY[${CATEGORIES.map((c) => `'${c}'`).join(',')}]`;
  const hash = passwordHash.replace(/'/g, "''");
  return [
    [
      'users',
      `INSERT INTO users (id, email, username, password_hash, role, referral_code, created_at)
       OVERRIDING SYSTEM VALUE
       SELECT u, 'scale-' || u || '@example.com', 'trader' || u, '${hash}', 'user', 'SCALE' || u,
         now() - interval '400 days' + u * interval '1 second'
       FROM generate_series(1::bigint, ${U}) u`,
    ],
    [
      'events and options',
      `INSERT INTO events (id, slug, title, description, category, status, closes_at, opened_at, closed_at, created_at)
       OVERRIDING SYSTEM VALUE
       SELECT e, 'scale-event-' || e,
         'Will the ' || (${words})[1 + e % 12] || ' ' || (${words})[1 + (e / 12) % 12] || ' question ' || e || ' be yes?',
         'Event ' || e || ' of a busy year: ' || (${words})[1 + (e / 144) % 12] || '.',
         (${categories})[1 + e % 8],
         CASE WHEN e % 5 = 0 THEN 'closed' ELSE 'open' END,
         CASE WHEN e % 5 = 0 THEN now() - interval '1 day' ELSE now() + interval '30 days' END,
         now() - interval '366 days',
         CASE WHEN e % 5 = 0 THEN now() - interval '1 day' END,
         now() - interval '366 days'
       FROM generate_series(1::bigint, ${E}) e;
       INSERT INTO options (id, event_id, label, sort_order, book_version, created_at) OVERRIDING SYSTEM VALUE
       SELECT o, (o - 1) / 10 + 1, 'Option ' || ((o - 1) % 10 + 1), (o - 1) % 10, 1, now() - interval '366 days'
       FROM generate_series(1::bigint, ${O}) o`,
    ],
    [
      'the fills to come (staging)',
      `CREATE UNLOGGED TABLE scale_fills AS
       SELECT i, option_id, (option_id - 1) / 10 + 1 AS event_id,
         CASE WHEN i % ${K} = 0 THEN 1 ELSE 3 + ((i / 50) * 104729 + i % 25) % ${U - 2} END AS taker_id,
         CASE WHEN i % 10 = 0 THEN 2 ELSE 3 + ((i / 50) * 7933 + i % 9) % ${U - 2} END AS maker_id,
         5 + (i * 7919) % 90 AS yes_price, 1 + (i * 31) % 20 AS quantity,
         CASE WHEN i % 2 = 0 THEN 'YES' ELSE 'NO' END AS taker_side,
         now() - interval '365 days' + i * (interval '365 days' / ${F}) AS at
       FROM (SELECT i, CASE WHEN i % ${K} = 0 THEN ((i / ${K}) * 37) % ${O} + 1
                            WHEN (i / 50) % 10 = 0 THEN 1
                            ELSE ((i / 50) * 7919) % ${O} + 1 END AS option_id
             FROM generate_series(1::bigint, ${F}) i) f`,
    ],
    [
      'fills',
      `INSERT INTO fills (id, option_id, yes_price, quantity, kind, taker_order_id, maker_order_id, created_at)
       OVERRIDING SYSTEM VALUE
       SELECT i, option_id, yes_price, quantity, 'mint', 2 * i - 1, 2 * i, at FROM scale_fills`,
    ],
    [
      'orders (filled)',
      `INSERT INTO orders (id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
         filled_quantity, reserved_cents, status, created_at, updated_at, book_version, placed_by)
       OVERRIDING SYSTEM VALUE
       SELECT 2 * i - j, CASE j WHEN 1 THEN taker_id ELSE maker_id END, option_id, 'limit', side, 'BUY',
         CASE side WHEN 'YES' THEN yes_price ELSE 100 - yes_price END,
         CASE side WHEN 'YES' THEN 'bid' ELSE 'ask' END, yes_price, quantity, quantity, 0, 'filled',
         at - (1 - j) * interval '30 seconds', at, 1,
         'session:' || CASE j WHEN 1 THEN taker_id ELSE maker_id END
       FROM (SELECT f.*, CASE WHEN j = 1 THEN taker_side WHEN taker_side = 'YES' THEN 'NO' ELSE 'YES' END AS side, j
             FROM scale_fills f CROSS JOIN (VALUES (1), (0)) AS js(j)) s`,
    ],
    [
      'orders (cancelled)',
      `INSERT INTO orders (id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
         filled_quantity, reserved_cents, status, cancel_reason, created_at, updated_at, book_version, placed_by)
       OVERRIDING SYSTEM VALUE
       SELECT ${2 * F} + c, CASE WHEN c % 2 = 0 THEN 2 ELSE 3 + (c * 13) % ${U - 2} END, (c * 13) % ${O} + 1,
         'limit', 'YES', 'BUY', 20 + c % 50, 'bid', 20 + c % 50, 10, 0, 0, 'cancelled', 'cancelled_by_user',
         now() - interval '365 days' + c * (interval '365 days' / ${C}),
         now() - interval '365 days' + c * (interval '365 days' / ${C}) + interval '5 minutes', 1,
         'session:' || CASE WHEN c % 2 = 0 THEN 2 ELSE 3 + (c * 13) % ${U - 2} END
       FROM generate_series(1::bigint, ${C}) c`,
    ],
    [
      'orders (resting, the bot)',
      `INSERT INTO orders (id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
         filled_quantity, reserved_cents, status, created_at, updated_at, book_version, placed_by)
       OVERRIDING SYSTEM VALUE
       SELECT ${2 * F + C} + 2 * o - j, 2, o, 'limit', CASE j WHEN 1 THEN 'YES' ELSE 'NO' END, 'BUY',
         CASE j WHEN 1 THEN 30 ELSE 60 END, CASE j WHEN 1 THEN 'bid' ELSE 'ask' END, CASE j WHEN 1 THEN 30 ELSE 40 END,
         10, 0, CASE j WHEN 1 THEN 300 ELSE 600 END, 'open', now() - interval '1 hour', now() - interval '1 hour', 1,
         'session:2'
       FROM generate_series(1::bigint, ${O}) o CROSS JOIN (VALUES (1), (0)) AS js(j)
       WHERE ((o - 1) / 10 + 1) % 5 <> 0`,
    ],
    [
      'trades',
      `INSERT INTO trades (id, fill_id, order_id, user_id, option_id, event_id, side, action, quantity, price_cents,
         fee_cents, liquidity, created_at)
       OVERRIDING SYSTEM VALUE
       SELECT 2 * i - j, i, 2 * i - j, CASE j WHEN 1 THEN taker_id ELSE maker_id END, option_id, event_id, side, 'BUY',
         quantity, CASE side WHEN 'YES' THEN yes_price ELSE 100 - yes_price END, 0,
         CASE j WHEN 1 THEN 'taker' ELSE 'maker' END, at
       FROM (SELECT f.*, CASE WHEN j = 1 THEN taker_side WHEN taker_side = 'YES' THEN 'NO' ELSE 'YES' END AS side, j
             FROM scale_fills f CROSS JOIN (VALUES (1), (0)) AS js(j)) s`,
    ],
    [
      'ledger accounts',
      `INSERT INTO ledger_accounts (id, kind, user_id, balance) OVERRIDING SYSTEM VALUE
       SELECT ${accounts} + 3 * u + k, (ARRAY['cash', 'reserved', 'transit'])[k + 1], u,
         CASE k WHEN 0 THEN 100000 END
       FROM generate_series(1::bigint, ${U}) u CROSS JOIN generate_series(0, 2) k;
       INSERT INTO ledger_accounts (id, kind, option_id, balance) OVERRIDING SYSTEM VALUE
       SELECT ${accounts + 3 * U + 3} + o, 'escrow', o, 0 FROM generate_series(1::bigint, ${O}) o`,
    ],
    [
      'journal entries and postings of the fills',
      `INSERT INTO journal_entries (id, kind, memo, user_id, ref_type, ref_id, created_at) OVERRIDING SYSTEM VALUE
       SELECT i, 'order', 'limit order ' || (2 * i - 1) || ': BUY ' || quantity || ' ' || taker_side || ' @ ' ||
         CASE taker_side WHEN 'YES' THEN yes_price ELSE 100 - yes_price END, taker_id, 'order', 2 * i - 1, at
       FROM scale_fills;
       INSERT INTO postings (id, entry_id, account_id, amount) OVERRIDING SYSTEM VALUE
       SELECT 3 * i - 2 + k, i,
         CASE k WHEN 0 THEN ${accounts + 3 * U + 3} + option_id WHEN 1 THEN ${accounts} + 3 * taker_id
                ELSE ${accounts} + 3 * maker_id END,
         CASE k WHEN 0 THEN 100 * quantity
                WHEN 1 THEN -quantity * CASE taker_side WHEN 'YES' THEN yes_price ELSE 100 - yes_price END
                ELSE -quantity * CASE taker_side WHEN 'YES' THEN 100 - yes_price ELSE yes_price END END
       FROM scale_fills CROSS JOIN generate_series(0, 2) k`,
    ],
    [
      'journal entries and postings of the resting orders',
      `INSERT INTO journal_entries (id, kind, memo, user_id, ref_type, ref_id, created_at) OVERRIDING SYSTEM VALUE
       SELECT ${F} + (id - ${2 * F + C}), 'order', 'limit order ' || id || ': BUY 10 ' || side || ' @ ' || price_cents,
         user_id, 'order', id, created_at
       FROM orders WHERE id > ${2 * F + C};
       INSERT INTO postings (id, entry_id, account_id, amount) OVERRIDING SYSTEM VALUE
       SELECT ${3 * F} + 2 * (id - ${2 * F + C}) - k, ${F} + (id - ${2 * F + C}),
         ${accounts} + 3 * user_id + k, CASE k WHEN 0 THEN -reserved_cents ELSE reserved_cents END
       FROM orders CROSS JOIN generate_series(0, 1) k WHERE id > ${2 * F + C}`,
    ],
    [
      'starting credits (what each user spent, and 1,000 more)',
      `CREATE UNLOGGED TABLE scale_spent AS
       SELECT u AS user_id, coalesce(t.spent, 0) + coalesce(r.reserved, 0) AS spent
       FROM generate_series(1::bigint, ${U}) u
       LEFT JOIN (SELECT user_id, sum(quantity * price_cents) AS spent FROM trades GROUP BY user_id) t ON t.user_id = u
       LEFT JOIN (SELECT user_id, sum(reserved_cents) AS reserved FROM orders WHERE id > ${2 * F + C}
                  GROUP BY user_id) r ON r.user_id = u;
       INSERT INTO journal_entries (id, kind, memo, user_id, created_at) OVERRIDING SYSTEM VALUE
       SELECT ${F + 2 * O} + user_id, 'signup_credit', 'Starting balance', user_id, now() - interval '400 days'
       FROM scale_spent;
       INSERT INTO postings (id, entry_id, account_id, amount) OVERRIDING SYSTEM VALUE
       SELECT ${3 * F + 4 * O} + 2 * user_id - k, ${F + 2 * O} + user_id,
         CASE k WHEN 0 THEN (SELECT id FROM ledger_accounts WHERE kind = 'bonus') ELSE ${accounts} + 3 * user_id END,
         CASE k WHEN 0 THEN -(100000 + spent) ELSE 100000 + spent END
       FROM scale_spent CROSS JOIN generate_series(0, 1) k;
       UPDATE ledger_accounts SET balance = balance - (SELECT sum(100000 + spent) FROM scale_spent)
       WHERE kind = 'bonus'`,
    ],
    [
      'positions',
      `INSERT INTO positions (user_id, option_id, side, quantity, cost_cents, realized_pnl_cents, created_at, updated_at)
       SELECT user_id, option_id, side, sum(quantity), sum(quantity * price_cents),
         CASE WHEN (user_id + option_id) % 7 = 0 THEN ((user_id * 31 + option_id) % 2001) - 1000 ELSE 0 END,
         min(created_at), max(created_at)
       FROM trades GROUP BY user_id, option_id, side`,
    ],
    [
      "each trader's totals (as migrations 190 and 199 make them)",
      `DELETE FROM trader_totals;
       INSERT INTO trader_totals (user_id, trades, volume_cents, realized_pnl_cents, positions_with_result)
       SELECT user_id, sum(trades), sum(volume), sum(pnl), sum(results) FROM (
         SELECT user_id, count(*) AS trades, sum(quantity * price_cents) AS volume, 0 AS pnl, 0 AS results
         FROM trades GROUP BY user_id
         UNION ALL
         SELECT user_id, 0, 0, sum(realized_pnl_cents), count(*) FILTER (WHERE realized_pnl_cents <> 0)
         FROM positions GROUP BY user_id) t
       GROUP BY user_id`,
    ],
    [
      'options and escrow totals',
      `CREATE UNLOGGED TABLE scale_option_totals AS
       SELECT option_id, sum(quantity) AS pairs,
         sum(quantity * CASE taker_side WHEN 'YES' THEN yes_price ELSE 100 - yes_price END) AS cents,
         (array_agg(yes_price ORDER BY i DESC))[1] AS last_price
       FROM scale_fills GROUP BY option_id;
       UPDATE options o SET pairs_minted = t.pairs, volume_shares = t.pairs, volume_cents = t.cents,
         last_yes_price = t.last_price
       FROM scale_option_totals t WHERE t.option_id = o.id;
       UPDATE ledger_accounts a SET balance = 100 * t.pairs
       FROM scale_option_totals t WHERE a.kind = 'escrow' AND a.option_id = t.option_id`,
    ],
    ...['1m', '5m', '15m', '1h', '6h', '1d'].map((interval): [string, string] => [
      `candles ${interval}`,
      `INSERT INTO candles (option_id, interval, bucket, open, high, low, close, volume_shares, volume_cents)
       SELECT option_id, '${interval}', date_bin(interval '${interval.replace('m', ' minutes').replace('h', ' hours').replace('d', ' days')}', at, 'epoch'),
         (array_agg(yes_price ORDER BY i))[1], max(yes_price), min(yes_price), (array_agg(yes_price ORDER BY i DESC))[1],
         sum(quantity), sum(quantity * CASE taker_side WHEN 'YES' THEN yes_price ELSE 100 - yes_price END)
       FROM scale_fills GROUP BY 1, 3`,
    ]),
    [
      'feed items',
      `INSERT INTO notifications (id, user_id, type, title, body, data, read_at, created_at) OVERRIDING SYSTEM VALUE
       SELECT n, CASE WHEN n % 200 = 0 THEN 1 WHEN n % 200 = 1 THEN 2 ELSE 3 + (n * 7919) % ${U - 2} END,
         'order.filled', 'Order filled', 'Your order to buy ' || (1 + n % 20) || ' YES of question ' || (n % ${E} + 1) ||
         ' filled at ' || (5 + n % 90) || '¢.',
         jsonb_build_object('orderId', (2 * (n % ${F}) + 1)::text, 'optionId', (n % ${O} + 1)::text, 'side', 'YES'),
         CASE WHEN n < ${Math.round(N * 0.95)} THEN now() - interval '365 days' + n * (interval '365 days' / ${N}) + interval '1 hour' END,
         now() - interval '365 days' + n * (interval '365 days' / ${N})
       FROM generate_series(1::bigint, ${N}) n`,
    ],
    [
      'sequences',
      FILLED_TABLES.filter((t) => t !== 'candles' && t !== 'trader_totals')
        .map((t) => `SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT max(id) FROM ${t}))`)
        .join(';\n'),
    ],
    [
      // As if the badge scan had kept up through the year: a running exchange's scan reads only what is new, and
      // catching up on ten million trades would load the server while its reads are measured.
      "the badge scan's cursors at the end",
      `UPDATE gamification_cursors c SET last_id = t.last_id, last_at = t.last_at
       FROM (SELECT 'badges.trades' AS name, max(id) AS last_id, max(created_at) AS last_at FROM trades
             UNION ALL
             SELECT 'badges.settlements', max(id), max(created_at) FROM position_settlements) t
       WHERE c.name = t.name AND t.last_id IS NOT NULL`,
    ],
    ['drop the staging tables', 'DROP TABLE scale_fills, scale_spent, scale_option_totals'],
  ];
}

/**
 * Fills a migrated database (nothing in it yet but what the migrations and a first start wrote) with a busy year
 * at `scale`. `log` is told each step as it ends.
 */
export async function fillBusyYear(
  databaseUrl: string,
  scale: number,
  passwordHash: string,
  log: (line: string) => void,
): Promise<BusyYear> {
  const size = busyYearSize(scale);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const steps: [string, number][] = [];
  const timed = async (name: string, run: () => Promise<unknown>) => {
    const t0 = performance.now();
    await run();
    const seconds = Math.round((performance.now() - t0) / 100) / 10;
    steps.push([name, seconds]);
    log(`  ${name}: ${seconds} s`);
  };
  try {
    await client.query(
      "SET session_replication_role = replica; SET maintenance_work_mem = '512MB'; SET work_mem = '256MB'",
    );
    const rebuild = await dropIndexes(client);
    for (const [name, statement] of fillStatements(size, passwordHash))
      await timed(name, () => client.query(statement));
    await timed('indexes and keys', async () => {
      for (const statement of rebuild) await client.query(statement);
    });
    await timed('vacuum and analyze', () => client.query('VACUUM (ANALYZE)'));
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM orders');
    return {
      ...size,
      orders: Number(rows[0]?.n),
      traderId: 1,
      botId: 2,
      hotOptionId: 1,
      steps,
    };
  } finally {
    await client.end();
  }
}
