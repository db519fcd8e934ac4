-- Markets, the order book, executions, positions and disputes.

CREATE TABLE events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  category text NOT NULL,
  featured boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'closed', 'resolved', 'settled')),
  resolution_source text,
  closes_at timestamptz NOT NULL,
  opened_at timestamptz,
  closed_at timestamptz,
  resolved_at timestamptz,
  settled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', description), 'B')
  ) STORED
);
CREATE INDEX events_search_idx ON events USING gin (search);
CREATE INDEX events_list_idx ON events (status, featured, id DESC);
CREATE INDEX events_category_idx ON events (category, id DESC);

CREATE TABLE options (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES events (id),
  label text NOT NULL,
  sort_order integer NOT NULL DEFAULT 0,
  resolution text CHECK (resolution IN ('YES', 'NO', 'VOID')),
  -- House market maker: LMSR liquidity b in cents (0 = none) and its share inventory.
  liquidity_b bigint NOT NULL DEFAULT 0 CHECK (liquidity_b >= 0),
  amm_offset bigint NOT NULL DEFAULT 0,
  amm_yes_shares bigint NOT NULL DEFAULT 0 CHECK (amm_yes_shares >= 0),
  amm_no_shares bigint NOT NULL DEFAULT 0 CHECK (amm_no_shares >= 0),
  pairs_minted bigint NOT NULL DEFAULT 0,
  pairs_merged bigint NOT NULL DEFAULT 0,
  last_yes_price integer CHECK (last_yes_price BETWEEN 1 AND 99),
  volume_shares bigint NOT NULL DEFAULT 0,
  volume_cents bigint NOT NULL DEFAULT 0,
  book_version bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, label)
);
CREATE INDEX options_event_idx ON options (event_id, sort_order, id);

ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_option_fk FOREIGN KEY (option_id) REFERENCES options (id);

CREATE TABLE orders (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  option_id bigint NOT NULL REFERENCES options (id),
  kind text NOT NULL CHECK (kind IN ('market', 'limit')),
  side text NOT NULL CHECK (side IN ('YES', 'NO')),
  action text NOT NULL CHECK (action IN ('BUY', 'SELL')),
  price_cents integer NOT NULL CHECK (price_cents BETWEEN 1 AND 99),
  -- The order as it rests on the option's single YES ladder.
  book_side text NOT NULL CHECK (book_side IN ('bid', 'ask')),
  book_price integer NOT NULL CHECK (book_price BETWEEN 1 AND 99),
  quantity bigint NOT NULL CHECK (quantity > 0),
  filled_quantity bigint NOT NULL DEFAULT 0,
  -- Cash still held in the user's reserved account for this order (BUY orders).
  reserved_cents bigint NOT NULL DEFAULT 0 CHECK (reserved_cents >= 0),
  status text NOT NULL CHECK (status IN ('open', 'partially_filled', 'filled', 'cancelled', 'expired')),
  cancel_reason text,
  client_order_id text,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (filled_quantity BETWEEN 0 AND quantity)
);
CREATE INDEX orders_book_idx ON orders (option_id, book_side, book_price, id) WHERE status IN ('open', 'partially_filled');
CREATE INDEX orders_user_idx ON orders (user_id, id DESC);
CREATE INDEX orders_expiry_idx ON orders (expires_at) WHERE status IN ('open', 'partially_filled') AND expires_at IS NOT NULL;
CREATE UNIQUE INDEX orders_client_order_id_idx ON orders (user_id, client_order_id) WHERE client_order_id IS NOT NULL;

-- One row per match between two orders (or an order and the house market maker): the price history.
CREATE TABLE fills (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  option_id bigint NOT NULL REFERENCES options (id),
  yes_price integer NOT NULL CHECK (yes_price BETWEEN 1 AND 99),
  quantity bigint NOT NULL CHECK (quantity > 0),
  kind text NOT NULL CHECK (kind IN ('mint', 'transfer', 'merge')),
  taker_order_id bigint NOT NULL REFERENCES orders (id),
  maker_order_id bigint REFERENCES orders (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fills_option_idx ON fills (option_id, created_at);

-- A trade is one execution for one user.
CREATE TABLE trades (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  fill_id bigint NOT NULL REFERENCES fills (id),
  order_id bigint NOT NULL REFERENCES orders (id),
  user_id bigint NOT NULL REFERENCES users (id),
  option_id bigint NOT NULL REFERENCES options (id),
  event_id bigint NOT NULL REFERENCES events (id),
  side text NOT NULL CHECK (side IN ('YES', 'NO')),
  action text NOT NULL CHECK (action IN ('BUY', 'SELL')),
  quantity bigint NOT NULL CHECK (quantity > 0),
  price_cents integer NOT NULL CHECK (price_cents BETWEEN 1 AND 99),
  fee_cents bigint NOT NULL DEFAULT 0,
  liquidity text NOT NULL CHECK (liquidity IN ('maker', 'taker')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trades_user_idx ON trades (user_id, id DESC);
CREATE INDEX trades_option_idx ON trades (option_id, id DESC);
CREATE INDEX trades_event_idx ON trades (event_id, created_at);

CREATE TABLE positions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  option_id bigint NOT NULL REFERENCES options (id),
  side text NOT NULL CHECK (side IN ('YES', 'NO')),
  quantity bigint NOT NULL DEFAULT 0,
  -- Shares locked by open SELL orders.
  reserved_quantity bigint NOT NULL DEFAULT 0,
  -- Cost basis in cents of the shares held now (fees included).
  cost_cents bigint NOT NULL DEFAULT 0,
  realized_pnl_cents bigint NOT NULL DEFAULT 0,
  stop_loss_bps integer,
  take_profit_bps integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, option_id, side),
  CHECK (reserved_quantity >= 0 AND quantity >= reserved_quantity)
);
CREATE INDEX positions_option_idx ON positions (option_id, side) WHERE quantity > 0;

CREATE TABLE idempotency_keys (
  user_id bigint NOT NULL REFERENCES users (id),
  key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);

CREATE TABLE disputes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES events (id),
  user_id bigint NOT NULL REFERENCES users (id),
  reason text NOT NULL,
  evidence_url text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'upheld', 'rejected')),
  decision_note text,
  decided_by bigint REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  UNIQUE (event_id, user_id)
);
CREATE INDEX disputes_pending_idx ON disputes (event_id) WHERE status = 'pending';

-- What each holder received when an option settled: the record behind win rates and correct predictions.
CREATE TABLE position_settlements (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  option_id bigint NOT NULL REFERENCES options (id),
  event_id bigint NOT NULL REFERENCES events (id),
  side text NOT NULL CHECK (side IN ('YES', 'NO')),
  outcome text NOT NULL CHECK (outcome IN ('YES', 'NO', 'VOID')),
  quantity bigint NOT NULL,
  payout_cents bigint NOT NULL,
  pnl_cents bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, option_id, side)
);
CREATE INDEX position_settlements_user_idx ON position_settlements (user_id);
