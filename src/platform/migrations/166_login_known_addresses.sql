-- Failed logins counted per key (an account from one address, one address, one account), each slowing sign-in down
-- with a delay that doubles with every further failure: `blocked_until` is when the next attempt is heard. A count
-- is forgotten a day after its last failure. The fixed window of before has no meaning any more.
DROP TABLE login_throttle;
CREATE TABLE login_throttle (
  key text PRIMARY KEY,
  failures integer NOT NULL,
  last_failed_at timestamptz NOT NULL,
  blocked_until timestamptz
);

-- The addresses each account has signed in from (SHA-256 of the address, not the address itself): the throttle per
-- account never refuses the right password from one of them.
CREATE TABLE login_known_addresses (
  user_id bigint NOT NULL REFERENCES users (id),
  address_hash text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, address_hash)
);
