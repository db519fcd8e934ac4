-- Head-to-head challenges and tournaments.

-- Challenge stakes are held in a house account of their own: a user's `reserved` must stay equal to the
-- collateral of their open orders, so stakes cannot live there.
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check
  CHECK (kind IN ('cash', 'reserved', 'escrow', 'bonus', 'amm', 'fees', 'stakes'));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_account_owner;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_account_owner CHECK (
  (kind IN ('cash', 'reserved') AND user_id IS NOT NULL AND option_id IS NULL)
  OR (kind = 'escrow' AND user_id IS NULL AND option_id IS NOT NULL)
  OR (kind IN ('bonus', 'amm', 'fees', 'stakes') AND user_id IS NULL AND option_id IS NULL)
);
-- Unlike the issuing house accounts, the stakes holding never goes below zero.
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_stakes_not_negative CHECK (kind <> 'stakes' OR balance >= 0);
INSERT INTO ledger_accounts (kind) VALUES ('stakes');

CREATE TABLE challenges (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  code text NOT NULL UNIQUE,
  creator_id bigint NOT NULL REFERENCES users (id),
  -- Named at creation (only they may accept) or set when someone accepts the invite code.
  opponent_id bigint REFERENCES users (id),
  -- Either an event (ends when it settles) or a time window over all markets.
  event_id bigint REFERENCES events (id),
  starts_at timestamptz,
  ends_at timestamptz,
  stake_cents bigint NOT NULL DEFAULT 0 CHECK (stake_cents >= 0),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'settled', 'expired')),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  settled_at timestamptz,
  creator_pnl_cents bigint,
  opponent_pnl_cents bigint,
  winner_id bigint REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (
    (event_id IS NOT NULL AND starts_at IS NULL AND ends_at IS NULL)
    OR (event_id IS NULL AND starts_at IS NOT NULL AND ends_at IS NOT NULL AND ends_at > starts_at)
  ),
  CHECK (opponent_id IS NULL OR opponent_id <> creator_id)
);
CREATE INDEX challenges_creator_idx ON challenges (creator_id, id DESC);
CREATE INDEX challenges_opponent_idx ON challenges (opponent_id, id DESC);
CREATE INDEX challenges_live_idx ON challenges (status, expires_at) WHERE status IN ('open', 'accepted');

CREATE TABLE tournaments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  entry_closes_at timestamptz NOT NULL,
  -- Prize in cents for 1st, 2nd, ... place, paid from house bonus.
  prizes jsonb NOT NULL DEFAULT '[]',
  created_by bigint REFERENCES users (id),
  finished_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at > starts_at),
  CHECK (entry_closes_at <= ends_at)
);
CREATE INDEX tournaments_ends_idx ON tournaments (ends_at) WHERE finished_at IS NULL;

CREATE TABLE tournament_events (
  tournament_id bigint NOT NULL REFERENCES tournaments (id),
  event_id bigint NOT NULL REFERENCES events (id),
  PRIMARY KEY (tournament_id, event_id)
);

CREATE TABLE tournament_entries (
  tournament_id bigint NOT NULL REFERENCES tournaments (id),
  user_id bigint NOT NULL REFERENCES users (id),
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tournament_id, user_id)
);
CREATE INDEX tournament_entries_user_idx ON tournament_entries (user_id);

-- The final standings, written once when the tournament ends; rank is null for entrants without a trade.
CREATE TABLE tournament_results (
  tournament_id bigint NOT NULL REFERENCES tournaments (id),
  user_id bigint NOT NULL REFERENCES users (id),
  rank integer,
  score_bps bigint NOT NULL,
  pnl_cents bigint NOT NULL,
  cost_cents bigint NOT NULL,
  trades integer NOT NULL,
  prize_cents bigint NOT NULL DEFAULT 0 CHECK (prize_cents >= 0),
  PRIMARY KEY (tournament_id, user_id),
  UNIQUE (tournament_id, rank)
);
CREATE INDEX tournament_results_user_idx ON tournament_results (user_id);
