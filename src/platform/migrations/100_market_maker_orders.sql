-- The market maker's order API: time in force and post-only on every order, the credential that placed it (for the
-- dead man's switch), the order an amend replaced, and the switches themselves.
ALTER TABLE orders
  ADD COLUMN time_in_force text NOT NULL DEFAULT 'GTC' CHECK (time_in_force IN ('GTC', 'GTD', 'IOC', 'FOK')),
  ADD COLUMN post_only boolean NOT NULL DEFAULT false,
  ADD COLUMN placed_by text,
  ADD COLUMN replaces_order_id bigint REFERENCES orders (id);
UPDATE orders SET time_in_force = CASE
  WHEN kind = 'market' THEN 'IOC'
  WHEN expires_at IS NOT NULL THEN 'GTD'
  ELSE 'GTC'
END;
ALTER TABLE orders ADD CONSTRAINT orders_expiry_needs_gtd CHECK ((time_in_force = 'GTD') = (expires_at IS NOT NULL));

-- A user's resting orders, for cancel-all and the dead man's switch.
CREATE INDEX orders_open_user_idx ON orders (user_id, option_id) WHERE status IN ('open', 'partially_filled');

-- One dead man's switch per credential: armed with a timeout, each heartbeat pushes `expires_at` on; once it has
-- passed, any instance's job cancels every resting order the credential placed and records that it went off.
CREATE TABLE heartbeats (
  credential text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  timeout_ms integer NOT NULL CHECK (timeout_ms > 0),
  armed_at timestamptz NOT NULL DEFAULT now(),
  last_beat_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  fired_at timestamptz,
  cancelled_orders integer NOT NULL DEFAULT 0
);
CREATE INDEX heartbeats_due_idx ON heartbeats (expires_at) WHERE expires_at IS NOT NULL;

-- Rows that every batch updates keep room on their page for the new versions, so that their updates stay HOT and
-- pruning keeps their version chains short (lookups and foreign-key checks then find them at once).
ALTER TABLE ledger_accounts SET (fillfactor = 50);
ALTER TABLE options SET (fillfactor = 50);

-- The order pipeline stamps the book version of the orders it writes itself (one above its option's, read under the
-- option's lock, as the trigger would); the trigger stays for any other writer, and now runs only for those.
DROP TRIGGER orders_book_version ON orders;
CREATE TRIGGER orders_book_version_insert BEFORE INSERT ON orders
  FOR EACH ROW WHEN (NEW.book_version = 0) EXECUTE FUNCTION orders_book_version();
CREATE TRIGGER orders_book_version_update BEFORE UPDATE ON orders
  FOR EACH ROW WHEN (NEW.book_version = OLD.book_version) EXECUTE FUNCTION orders_book_version();
