-- Passkeys (WebAuthn credentials) as a second factor and a sign-in of their own: each credential's public key (COSE),
-- its signature counter, and the user handle the account's authenticators keep; and the challenges handed out for
-- a registration or a sign-in, each spent once (any instance may check the answer, so they live here, not in
-- memory).
CREATE TABLE passkeys (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  name text NOT NULL,
  -- base64url of the credential's id, as authenticators send it back.
  credential_id text NOT NULL UNIQUE,
  -- base64url of the COSE public key.
  public_key text NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  transports text[] NOT NULL DEFAULT '{}',
  -- base64url of the WebAuthn user handle: random, one per account, never the account's id.
  user_handle text NOT NULL,
  backed_up boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX passkeys_user_idx ON passkeys (user_id);

CREATE TABLE passkey_challenges (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- null: a sign-in without a password, whose account the passkey names.
  user_id bigint REFERENCES users (id),
  purpose text NOT NULL CHECK (purpose IN ('register', 'authenticate')),
  challenge text NOT NULL UNIQUE,
  -- A registration's user handle, kept until the new credential is stored with it.
  user_handle text,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX passkey_challenges_expires_idx ON passkey_challenges (expires_at);
