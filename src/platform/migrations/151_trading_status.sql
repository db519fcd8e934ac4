-- The trading status operators set: `trading` (everything is taken), `post_only` (new orders only as post-only limit
-- orders, which never take liquidity) or `maintenance` (no new orders, amends or conversions). Cancels always work.
-- One row for the whole exchange, and one per market (event) that is held stricter than the exchange.
CREATE TABLE exchange_trading_status (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  status text NOT NULL CHECK (status IN ('trading', 'post_only', 'maintenance')),
  message text CHECK (char_length(message) <= 500),
  updated_by bigint REFERENCES users (id),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO exchange_trading_status (status) VALUES ('trading');

CREATE TABLE event_trading_status (
  event_id bigint PRIMARY KEY REFERENCES events (id),
  -- A market that trades as the exchange does has no row.
  status text NOT NULL CHECK (status IN ('post_only', 'maintenance')),
  message text CHECK (char_length(message) <= 500),
  updated_by bigint REFERENCES users (id),
  updated_at timestamptz NOT NULL DEFAULT now()
);
