-- Badges earned, referral rewards paid, and the positions of the background scans that award them.

CREATE TABLE user_badges (
  user_id bigint NOT NULL REFERENCES users (id),
  badge_id text NOT NULL,
  earned_at timestamptz NOT NULL DEFAULT now(),
  -- A badge is earned once: concurrent awarders collide here and only one of them notifies.
  PRIMARY KEY (user_id, badge_id)
);

-- One row per referred user whose first trade paid their referrer: the unique key makes the reward once-only.
CREATE TABLE referral_rewards (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  referred_user_id bigint NOT NULL UNIQUE REFERENCES users (id),
  referrer_id bigint NOT NULL REFERENCES users (id),
  amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX referral_rewards_referrer_idx ON referral_rewards (referrer_id);

-- How far the badge scan has read each source of new activity (trades, settled holdings): the last row consumed.
CREATE TABLE gamification_cursors (
  name text PRIMARY KEY,
  last_id bigint NOT NULL DEFAULT 0,
  last_at timestamptz NOT NULL DEFAULT '1970-01-01T00:00:00Z'
);
INSERT INTO gamification_cursors (name) VALUES ('badges.trades'), ('badges.settlements');

CREATE INDEX users_referred_by_idx ON users (referred_by) WHERE referred_by IS NOT NULL;
CREATE INDEX users_streak_longest_idx ON users (streak_longest) WHERE streak_longest >= 3;
