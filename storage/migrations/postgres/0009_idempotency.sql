-- Responses remembered for Idempotency-Key retries: one row per (token, key).
-- A retry with the same key and the same request within 24 hours gets the
-- stored response instead of running again; rows older than that are purged.
CREATE TABLE idempotency_keys (
    scope       TEXT COLLATE "C" NOT NULL,                   -- the caller's token id
    key         TEXT COLLATE "C" NOT NULL,                   -- the Idempotency-Key header
    fingerprint TEXT COLLATE "C" NOT NULL,                   -- SHA-256 of method, path and body
    status      BIGINT NOT NULL,
    headers     TEXT COLLATE "C" NOT NULL,                   -- JSON object of the replayed headers
    body        BYTEA NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
