-- The security log of each account: sign-ins and failed ones, sessions ended, keys made, changed and revoked,
-- factors added and removed, password and address changes, and throttling, each with the address and the user
-- agent of the request. Read newest first by the account (GET /api/me/security-log).
CREATE TABLE security_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  kind text NOT NULL,
  address text,
  user_agent text,
  details jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX security_events_user_idx ON security_events (user_id, id DESC);
