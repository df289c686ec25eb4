-- Responses remembered for Idempotency-Key retries: one row per (token, key).
-- A retry with the same key and the same request within 24 hours gets the
-- stored response instead of running again; rows older than that are purged.
CREATE TABLE idempotency_keys (
    scope       TEXT NOT NULL,                   -- the caller's token id
    key         TEXT NOT NULL,                   -- the Idempotency-Key header
    fingerprint TEXT NOT NULL,                   -- SHA-256 of method, path and body
    status      INTEGER NOT NULL,
    headers     TEXT NOT NULL,                   -- JSON object of the replayed headers
    body        BLOB NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
