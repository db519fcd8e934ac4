-- Collateral kept by user apart from the books kept by market (docs/architecture.md, "Markets that do not wait for
-- each other"). A user's cash is changed only by the user's own steps; the markets spend and give back through the
-- user's transit account, whose balance is held in two kinds of rows: holds (set aside for a request on its way to a
-- market) and returns (given back by a market, waiting for the user's next step to take them into cash).

-- The accounts many markets post to at once keep no balance: theirs is the sum of their postings.
ALTER TABLE ledger_accounts ALTER COLUMN balance DROP NOT NULL;
UPDATE ledger_accounts SET balance = NULL WHERE kind IN ('reserved', 'amm', 'fees');

ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('cash', 'reserved', 'transit', 'escrow', 'bonus', 'amm', 'fees', 'stakes', 'conversion'));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_account_owner;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_account_owner CHECK (
  (kind IN ('cash', 'reserved', 'transit') AND user_id IS NOT NULL AND option_id IS NULL AND event_id IS NULL)
  OR (kind = 'escrow' AND user_id IS NULL AND option_id IS NOT NULL AND event_id IS NULL)
  OR (kind = 'conversion' AND user_id IS NULL AND option_id IS NULL AND event_id IS NOT NULL)
  OR (kind IN ('bonus', 'amm', 'fees', 'stakes') AND user_id IS NULL AND option_id IS NULL AND event_id IS NULL)
);
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_account_balance_kept CHECK (
  (kind IN ('reserved', 'transit', 'amm', 'fees')) = (balance IS NULL)
);
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_user_accounts_not_negative;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_user_accounts_not_negative CHECK (kind <> 'cash' OR balance >= 0);

INSERT INTO ledger_accounts (kind, user_id, balance) SELECT 'transit', id, NULL FROM users;

-- Cash set aside by a user's collateral step for one part of a request, until the market that decides it spends it
-- (deletes the row) or it passes its expiry unspent (the sweeper gives it back as a return).
CREATE TABLE collateral_holds (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  -- The market it was set aside for (`option:<id>` or `event:<id>`), for the operators who read it.
  market text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX collateral_holds_expiry_idx ON collateral_holds (expires_at);
CREATE INDEX collateral_holds_user_idx ON collateral_holds (user_id);

-- What a market gave back to a user (the unspent part of holds, proceeds, released collateral, payouts), inserted by
-- the market's transaction without waiting for anyone, deleted under the user's cash lock when taken into cash.
CREATE TABLE collateral_returns (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX collateral_returns_user_idx ON collateral_returns (user_id);
