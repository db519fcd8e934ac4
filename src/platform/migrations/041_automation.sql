-- Protections: after each fill, only the positions of that option that carry a stop-loss or take-profit are read.
CREATE INDEX positions_protected_idx ON positions (option_id)
  WHERE stop_loss_bps IS NOT NULL OR take_profit_bps IS NOT NULL;

-- Copy trading: who mirrors whom, and how.
CREATE TABLE copy_follows (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  follower_id bigint NOT NULL REFERENCES users (id),
  leader_id bigint NOT NULL REFERENCES users (id),
  sizing_mode text NOT NULL CHECK (sizing_mode IN ('fixed', 'fraction')),
  fixed_quantity bigint CHECK (fixed_quantity > 0),
  fraction_bps integer CHECK (fraction_bps BETWEEN 1 AND 10000),
  max_quantity_per_trade bigint NOT NULL CHECK (max_quantity_per_trade > 0),
  daily_limit_cents bigint NOT NULL CHECK (daily_limit_cents >= 0),
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (follower_id, leader_id),
  CHECK (follower_id <> leader_id),
  CHECK ((sizing_mode = 'fixed' AND fixed_quantity IS NOT NULL) OR (sizing_mode = 'fraction' AND fraction_bps IS NOT NULL))
);
CREATE INDEX copy_follows_leader_idx ON copy_follows (leader_id) WHERE enabled;

-- One row per leader fill and follower: written with the leader's order, then placed (or skipped) by a job.
CREATE TABLE copy_mirrors (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  leader_order_id bigint NOT NULL REFERENCES orders (id),
  leader_id bigint NOT NULL REFERENCES users (id),
  follower_id bigint NOT NULL REFERENCES users (id),
  option_id bigint NOT NULL REFERENCES options (id),
  side text NOT NULL CHECK (side IN ('YES', 'NO')),
  action text NOT NULL CHECK (action IN ('BUY', 'SELL')),
  leader_quantity bigint NOT NULL CHECK (leader_quantity > 0),
  leader_notional_cents bigint NOT NULL,
  -- The leader's average price rounded in the follower's favour: the worst price the mirror accepts.
  worst_price_cents integer NOT NULL CHECK (worst_price_cents BETWEEN 1 AND 99),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'placed', 'skipped')),
  quantity bigint,
  -- While processing: the most the mirror may spend (held against the daily limit); once placed: what it spent.
  notional_cents bigint NOT NULL DEFAULT 0,
  order_id bigint REFERENCES orders (id),
  filled_quantity bigint NOT NULL DEFAULT 0,
  reason text,
  claimed_at timestamptz,
  processed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (leader_order_id, follower_id)
);
CREATE INDEX copy_mirrors_due_idx ON copy_mirrors (created_at) WHERE status IN ('pending', 'processing');
CREATE INDEX copy_mirrors_follower_idx ON copy_mirrors (follower_id, leader_id, created_at);
CREATE INDEX copy_mirrors_follower_list_idx ON copy_mirrors (follower_id, id DESC);
