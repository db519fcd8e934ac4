-- What an API key may do: its scopes, the addresses it may be used from, when it stops working, and the risk limits
-- the order decision holds its orders to. Keys made before scopes existed keep every scope.
ALTER TABLE api_keys ADD COLUMN scopes text[] NOT NULL DEFAULT '{read,trade,cancel,account}';
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scopes_known
  CHECK (scopes <@ '{read,trade,cancel,account}'::text[] AND cardinality(scopes) > 0);
-- CIDRs the key may be used from (an address is a /32 or /128); null: anywhere.
ALTER TABLE api_keys ADD COLUMN allowed_cidrs text[];
ALTER TABLE api_keys ADD COLUMN expires_at timestamptz;

-- A key's risk limits (null: no such limit). Its row is also its lock: the order pipeline locks it, after the markets'
-- locks and in key order, before reading what the key's orders use of the limits that span markets (open orders,
-- the day's loss), so that two markets never both let through the last of a limit.
CREATE TABLE api_key_limits (
  key_id bigint PRIMARY KEY REFERENCES api_keys (id),
  max_order_cents bigint CHECK (max_order_cents > 0),
  max_open_orders integer CHECK (max_open_orders >= 0),
  max_position_shares bigint CHECK (max_position_shares >= 0),
  max_daily_loss_cents bigint CHECK (max_daily_loss_cents >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The resting orders of one credential, and the day's trades of one user, for those reads.
CREATE INDEX orders_open_placed_by_idx ON orders (placed_by)
  WHERE status IN ('open', 'partially_filled') AND placed_by IS NOT NULL;
CREATE INDEX trades_user_time_idx ON trades (user_id, created_at);
