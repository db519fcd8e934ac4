-- Operator switches read by every instance (each caches them for a few seconds).
CREATE TABLE feature_flags (
  key text PRIMARY KEY CHECK (key ~ '^[a-z][a-zA-Z0-9]{0,63}$'),
  enabled boolean NOT NULL DEFAULT false,
  description text NOT NULL,
  updated_by bigint REFERENCES users (id),
  updated_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO feature_flags (key, enabled, description) VALUES
  ('deposits', false, 'Users can deposit money (needs a payment provider)'),
  ('withdrawals', false, 'Users can withdraw money (needs a payment provider)'),
  ('cricketLive', false, 'Show the live cricket feed (needs a cricket data provider)'),
  ('copyTrading', false, 'Users can mirror another trader''s trades'),
  ('newsSummary', true, 'Add an AI summary to market news (needs an AI provider)');
