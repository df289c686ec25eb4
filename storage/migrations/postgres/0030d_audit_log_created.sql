-- The audit log by time alone: a replica whose LISTEN connection
-- was lost replays the live changes recorded since (storage/live_replay.go)
-- across organizations; audit_log's indexes all begin with the
-- organization. audit_recent needs none (it holds the last seconds).
CREATE INDEX audit_log_created ON audit_log (created_at);
