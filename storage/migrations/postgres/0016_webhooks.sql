-- Webhooks: endpoints an organization's admins register, the
-- events each one is subscribed to, and the outbox of deliveries. A change
-- an organization's write records (storage/changes.go) queues one delivery
-- per active subscribed endpoint in the same transaction (storage/webhooks.go).

CREATE TABLE webhooks (
    id                    TEXT COLLATE "C" PRIMARY KEY,
    organization_id       TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    url                   TEXT COLLATE "C" NOT NULL,
    description           TEXT COLLATE "C" NOT NULL DEFAULT '',
    events                TEXT COLLATE "C" NOT NULL,     -- JSON list, as given
    active                BIGINT NOT NULL DEFAULT 1,
    secret                TEXT COLLATE "C" NOT NULL,     -- HMAC key of the deliveries (as integration signing secrets)
    previous_secret       TEXT COLLATE "C",              -- the secret before the last rotation, still signing ...
    previous_secret_until BIGINT,           -- ... until then (unix ms)
    failing_since         BIGINT,           -- first failed attempt since the last success
    disabled_reason       TEXT COLLATE "C",
    disabled_at           BIGINT,
    created_at            BIGINT NOT NULL,
    updated_at            BIGINT NOT NULL
);
CREATE INDEX webhooks_by_org ON webhooks (organization_id, created_at, id);

-- One row per (organization, event, endpoint): the sink finds the
-- endpoints of a change with one primary-key range read.
CREATE TABLE webhook_subscriptions (
    organization_id TEXT COLLATE "C" NOT NULL,
    event           TEXT COLLATE "C" NOT NULL,
    webhook_id      TEXT COLLATE "C" NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    PRIMARY KEY (organization_id, event, webhook_id)
);
CREATE INDEX webhook_subscriptions_by_webhook ON webhook_subscriptions (webhook_id);

-- One delivery of one event to one endpoint; a replay queues the same row
-- again (same event id and body).
CREATE TABLE webhook_deliveries (
    webhook_id      TEXT COLLATE "C" NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event_id        TEXT COLLATE "C" NOT NULL,
    type            TEXT COLLATE "C" NOT NULL,
    payload         TEXT COLLATE "C" NOT NULL,     -- the exact body sent
    status          TEXT COLLATE "C" NOT NULL,     -- pending | succeeded | failed
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT,           -- NULL once succeeded or failed
    queued_at       BIGINT NOT NULL,  -- start of the retry window: creation or replay
    response_status BIGINT,
    duration_ms     BIGINT,
    last_error      TEXT COLLATE "C",
    last_attempt_at BIGINT,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at);
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, event_id);
