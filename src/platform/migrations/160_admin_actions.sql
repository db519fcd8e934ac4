-- What operators did, for the admin audit log: who (an account, or the command line), what (the action, by the
-- route or command that made it), to what (a user, a market, a setting...), when and from which address. Rows are
-- only ever added.
CREATE TABLE admin_actions (
  id bigserial PRIMARY KEY,
  actor_id bigint REFERENCES users (id),
  via text NOT NULL CHECK (via IN ('api', 'cli', 'bootstrap')),
  action text NOT NULL CHECK (char_length(action) <= 200),
  summary text NOT NULL CHECK (char_length(summary) <= 300),
  target_type text CHECK (char_length(target_type) <= 60),
  target_id text CHECK (char_length(target_id) <= 200),
  details jsonb,
  address text CHECK (char_length(address) <= 100),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_actions_recent ON admin_actions (id DESC);
CREATE INDEX admin_actions_by_target ON admin_actions (target_type, target_id, id DESC);

-- One-time tokens that make a signed-in account the first operator while no account has the admin role; only their
-- SHA-256 is kept. Every row goes when an account becomes admin.
CREATE TABLE admin_bootstrap_tokens (
  token_hash text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);
