-- Second factors: an authenticator app's TOTP secret (confirmed once a code from it was given), one-time recovery
-- codes (SHA-256 of 80 random bits each), the challenges of two-step logins, and when each session last proved a
-- factor (actions that need a fresh one look there).
CREATE TABLE second_factors (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  kind text NOT NULL CHECK (kind IN ('totp')),
  secret text NOT NULL,
  -- The last time step a code was accepted at: no code is accepted twice.
  last_time_step bigint,
  confirmed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX second_factors_user_kind_idx ON second_factors (user_id, kind);

CREATE TABLE recovery_codes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  code_hash text NOT NULL UNIQUE,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recovery_codes_user_idx ON recovery_codes (user_id);

CREATE TABLE login_challenges (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  token_hash text NOT NULL UNIQUE,
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_challenges_user_idx ON login_challenges (user_id);

CREATE TABLE session_factors (
  session_id bigint PRIMARY KEY REFERENCES sessions (id),
  verified_at timestamptz NOT NULL
);
