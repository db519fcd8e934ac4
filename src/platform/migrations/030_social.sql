-- Discussion (posts, comments, likes), moderation reports and market suggestions.

CREATE TABLE posts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES events (id),
  user_id bigint NOT NULL REFERENCES users (id),
  -- Plain text exactly as written (trimmed); never rendered or transformed by the service.
  body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 2000),
  -- Hidden by a moderator or deleted by its author: gone from every public read.
  hidden_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX posts_event_idx ON posts (event_id, id DESC);
CREATE INDEX posts_user_idx ON posts (user_id, id DESC);
CREATE INDEX posts_recent_idx ON posts (id DESC) WHERE hidden_at IS NULL AND deleted_at IS NULL;

-- One row per (post, user): a like cannot be counted twice, and counts are derived from these rows.
CREATE TABLE post_likes (
  post_id bigint NOT NULL REFERENCES posts (id),
  user_id bigint NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (post_id, user_id)
);

CREATE TABLE comments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  post_id bigint NOT NULL REFERENCES posts (id),
  user_id bigint NOT NULL REFERENCES users (id),
  body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 1000),
  hidden_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_post_idx ON comments (post_id, id);

CREATE TABLE reports (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reporter_id bigint NOT NULL REFERENCES users (id),
  target_type text NOT NULL CHECK (target_type IN ('POST', 'COMMENT', 'USER')),
  target_id bigint NOT NULL,
  reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'dismissed', 'hidden', 'suspended')),
  resolution_note text,
  resolved_by bigint REFERENCES users (id),
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- One open report per reporter and target, enforced by the database so concurrent duplicates lose.
CREATE UNIQUE INDEX reports_one_open_idx ON reports (reporter_id, target_type, target_id) WHERE status = 'open';
CREATE INDEX reports_status_idx ON reports (status, id DESC);
CREATE INDEX reports_target_idx ON reports (target_type, target_id) WHERE status = 'open';

CREATE TABLE market_suggestions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  category text NOT NULL,
  options jsonb NOT NULL,
  resolution_source text,
  closes_at timestamptz,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  rejection_reason text,
  event_id bigint REFERENCES events (id),
  reviewed_by bigint REFERENCES users (id),
  reviewed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX market_suggestions_user_idx ON market_suggestions (user_id, id DESC);
CREATE INDEX market_suggestions_status_idx ON market_suggestions (status, id DESC);
