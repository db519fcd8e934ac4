-- Exclusive events: exactly one option wins; one house maker spans the options; shares convert between them.

ALTER TABLE events ADD COLUMN exclusive boolean NOT NULL DEFAULT false;
-- The LMSR liquidity b (cents) of an exclusive event's one house maker; its options' own liquidity_b stay 0.
ALTER TABLE events ADD COLUMN liquidity_b bigint NOT NULL DEFAULT 0 CHECK (liquidity_b >= 0);

-- The conversion pool's complete sets, as shares of each option (the same on every option of an event).
ALTER TABLE options ADD COLUMN pool_yes_shares bigint NOT NULL DEFAULT 0 CHECK (pool_yes_shares >= 0);
ALTER TABLE options ADD COLUMN pool_no_shares bigint NOT NULL DEFAULT 0 CHECK (pool_no_shares >= 0);
-- Cash the house maker received in the option (negative: paid), its settlement included: its result there.
ALTER TABLE options ADD COLUMN amm_cash_cents bigint NOT NULL DEFAULT 0;
UPDATE options o SET amm_cash_cents = flows.total
FROM (
  SELECT coalesce(ord.option_id, CASE WHEN je.ref_type = 'option' THEN je.ref_id END) AS option_id,
    sum(p.amount) AS total
  FROM postings p
  JOIN ledger_accounts a ON a.id = p.account_id AND a.kind = 'amm'
  JOIN journal_entries je ON je.id = p.entry_id
  LEFT JOIN orders ord ON je.ref_type = 'order' AND ord.id = je.ref_id
  GROUP BY 1
) flows
WHERE flows.option_id = o.id;

-- Each exclusive event's conversion pool has an account of its own.
ALTER TABLE ledger_accounts ADD COLUMN event_id bigint REFERENCES events (id);
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('cash', 'reserved', 'escrow', 'bonus', 'amm', 'fees', 'stakes', 'conversion'));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_account_owner;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_account_owner CHECK (
  (kind IN ('cash', 'reserved') AND user_id IS NOT NULL AND option_id IS NULL AND event_id IS NULL)
  OR (kind = 'escrow' AND user_id IS NULL AND option_id IS NOT NULL AND event_id IS NULL)
  OR (kind = 'conversion' AND user_id IS NULL AND option_id IS NULL AND event_id IS NOT NULL)
  OR (kind IN ('bonus', 'amm', 'fees', 'stakes') AND user_id IS NULL AND option_id IS NULL AND event_id IS NULL)
);
CREATE UNIQUE INDEX ledger_accounts_event_kind ON ledger_accounts (event_id, kind) WHERE event_id IS NOT NULL;
DROP INDEX ledger_accounts_house_kind;
CREATE UNIQUE INDEX ledger_accounts_house_kind ON ledger_accounts (kind)
  WHERE user_id IS NULL AND option_id IS NULL AND event_id IS NULL;

-- A conversion between an exclusive event's options: what the user gave and received, at which reference prices.
CREATE TABLE conversions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  event_id bigint NOT NULL REFERENCES events (id),
  kind text NOT NULL CHECK (kind IN ('convert', 'split', 'merge')),
  quantity bigint NOT NULL CHECK (quantity > 0),
  -- convert: the options whose NO shares were given.
  option_ids bigint[] NOT NULL DEFAULT '{}',
  cash_cents bigint NOT NULL,
  -- [{optionId, side, quantity, priceCents}]: shares received (positive) or given (negative).
  legs jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversions_user_idx ON conversions (user_id, id DESC);
CREATE INDEX conversions_event_idx ON conversions (event_id, id);
