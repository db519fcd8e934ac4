-- An address is proven by a link sent to it: when the account's address was proven (null: never), and the links
-- sent, each stored as the SHA-256 of its token, single-use and short-lived. `email` is the address the link went
-- to: a link proves that address only.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;

CREATE TABLE email_links (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  purpose text NOT NULL CHECK (purpose IN ('verify', 'reset')),
  email text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX email_links_user_idx ON email_links (user_id, purpose, created_at);
