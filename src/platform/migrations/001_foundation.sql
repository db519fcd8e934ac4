-- Accounts, credentials and the double-entry ledger.

CREATE TABLE users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL UNIQUE,
  username text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  first_name text,
  last_name text,
  role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
  referral_code text NOT NULL UNIQUE,
  referred_by bigint REFERENCES users (id),
  suspended_at timestamptz,
  streak_current integer NOT NULL DEFAULT 0,
  streak_longest integer NOT NULL DEFAULT 0,
  streak_last_day date,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

CREATE TABLE api_keys (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  name text NOT NULL,
  prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

-- Failed logins counted per email and per address, so brute force is throttled across instances.
CREATE TABLE login_throttle (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL
);

-- Ledger. House accounts (bonus, amm, fees) issue money and may go negative; user accounts never may.
CREATE TABLE ledger_accounts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('cash', 'reserved', 'escrow', 'bonus', 'amm', 'fees')),
  user_id bigint REFERENCES users (id),
  option_id bigint,
  balance bigint NOT NULL DEFAULT 0,
  CONSTRAINT ledger_user_accounts_not_negative CHECK (kind NOT IN ('cash', 'reserved') OR balance >= 0),
  CONSTRAINT ledger_account_owner CHECK (
    (kind IN ('cash', 'reserved') AND user_id IS NOT NULL AND option_id IS NULL)
    OR (kind = 'escrow' AND user_id IS NULL AND option_id IS NOT NULL)
    OR (kind IN ('bonus', 'amm', 'fees') AND user_id IS NULL AND option_id IS NULL)
  )
);
CREATE UNIQUE INDEX ledger_accounts_user_kind ON ledger_accounts (user_id, kind) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_accounts_option_kind ON ledger_accounts (option_id, kind) WHERE option_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_accounts_house_kind ON ledger_accounts (kind) WHERE user_id IS NULL AND option_id IS NULL;

INSERT INTO ledger_accounts (kind) VALUES ('bonus'), ('amm'), ('fees');

CREATE TABLE journal_entries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL,
  memo text NOT NULL,
  user_id bigint REFERENCES users (id),
  ref_type text,
  ref_id bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX journal_entries_user_idx ON journal_entries (user_id, id);
CREATE INDEX journal_entries_ref_idx ON journal_entries (ref_type, ref_id);

CREATE TABLE postings (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entry_id bigint NOT NULL REFERENCES journal_entries (id),
  account_id bigint NOT NULL REFERENCES ledger_accounts (id),
  amount bigint NOT NULL CHECK (amount <> 0)
);
CREATE INDEX postings_entry_idx ON postings (entry_id);
CREATE INDEX postings_account_idx ON postings (account_id);
