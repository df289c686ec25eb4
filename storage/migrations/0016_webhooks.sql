-- Webhooks: endpoints an organization's admins register, the
-- events each one is subscribed to, and the outbox of deliveries. A change
-- an organization's write records (storage/changes.go) queues one delivery
-- per active subscribed endpoint in the same transaction (storage/webhooks.go).

CREATE TABLE webhooks (
    id                    TEXT PRIMARY KEY,
    organization_id       TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    url                   TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    events                TEXT NOT NULL,     -- JSON list, as given
    active                INTEGER NOT NULL DEFAULT 1,
    secret                TEXT NOT NULL,     -- HMAC key of the deliveries (as integration signing secrets)
    previous_secret       TEXT,              -- the secret before the last rotation, still signing ...
    previous_secret_until INTEGER,           -- ... until then (unix ms)
    failing_since         INTEGER,           -- first failed attempt since the last success
    disabled_reason       TEXT,
    disabled_at           INTEGER,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
);
CREATE INDEX webhooks_by_org ON webhooks (organization_id, created_at, id);

-- One row per (organization, event, endpoint): the sink finds the
-- endpoints of a change with one primary-key range read.
CREATE TABLE webhook_subscriptions (
    organization_id TEXT NOT NULL,
    event           TEXT NOT NULL,
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    PRIMARY KEY (organization_id, event, webhook_id)
);
CREATE INDEX webhook_subscriptions_by_webhook ON webhook_subscriptions (webhook_id);

-- One delivery of one event to one endpoint; a replay queues the same row
-- again (same event id and body).
CREATE TABLE webhook_deliveries (
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL,
    type            TEXT NOT NULL,
    payload         TEXT NOT NULL,     -- the exact body sent
    status          TEXT NOT NULL,     -- pending | succeeded | failed
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,           -- NULL once succeeded or failed
    queued_at       INTEGER NOT NULL,  -- start of the retry window: creation or replay
    response_status INTEGER,
    duration_ms     INTEGER,
    last_error      TEXT,
    last_attempt_at INTEGER,
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at);
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, event_id);
