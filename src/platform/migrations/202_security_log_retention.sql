-- The security log is pruned by age (SECURITY_LOG_RETENTION_DAYS): the oldest entries are found by their time.
CREATE INDEX security_events_created_idx ON security_events (created_at);
