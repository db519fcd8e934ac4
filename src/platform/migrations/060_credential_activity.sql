-- Where and when each credential was last used, so an account holder can recognise and end what is not theirs.
-- Written at most once a minute per credential (see KEY_USE_INTERVAL_MS), not on every request.
ALTER TABLE sessions ADD COLUMN created_ip text;
ALTER TABLE sessions ADD COLUMN user_agent text;
ALTER TABLE sessions ADD COLUMN last_used_at timestamptz;
ALTER TABLE sessions ADD COLUMN last_used_ip text;
ALTER TABLE api_keys ADD COLUMN last_used_ip text;
