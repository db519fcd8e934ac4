-- Account preferences and avatar, private trade notes, the watchlist and follows.

CREATE TABLE user_preferences (
  user_id bigint PRIMARY KEY REFERENCES users (id),
  display_name text CHECK (char_length(display_name) BETWEEN 1 AND 50),
  bio text NOT NULL DEFAULT '' CHECK (char_length(bio) <= 280),
  dark_mode boolean NOT NULL DEFAULT false,
  timezone text,
  notify_trades boolean NOT NULL DEFAULT true,
  notify_social boolean NOT NULL DEFAULT true,
  notify_competitions boolean NOT NULL DEFAULT true,
  notify_marketing boolean NOT NULL DEFAULT false,
  -- Storage key of the current avatar image (a new key per upload, so its URL can be cached forever).
  avatar_key text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A note is always filed under an event; a note on a trade also names the trade.
CREATE TABLE trade_notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  event_id bigint NOT NULL REFERENCES events (id),
  trade_id bigint REFERENCES trades (id),
  text text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 2000),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trade_notes_user_idx ON trade_notes (user_id, id DESC);
CREATE INDEX trade_notes_user_event_idx ON trade_notes (user_id, event_id, id DESC);
CREATE INDEX trade_notes_user_trade_idx ON trade_notes (user_id, trade_id, id DESC) WHERE trade_id IS NOT NULL;

CREATE TABLE watchlist_items (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  event_id bigint NOT NULL REFERENCES events (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, event_id)
);
CREATE INDEX watchlist_items_user_idx ON watchlist_items (user_id, id DESC);

CREATE TABLE follows (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  follower_id bigint NOT NULL REFERENCES users (id),
  followee_id bigint NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (follower_id, followee_id),
  CHECK (follower_id <> followee_id)
);
CREATE INDEX follows_follower_idx ON follows (follower_id, id DESC);
CREATE INDEX follows_followee_idx ON follows (followee_id, id DESC);
