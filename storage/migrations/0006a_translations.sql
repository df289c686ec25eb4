-- Translations of a space into another language. The translations table is
-- also the job queue: a row in status 'pending' waits for the background
-- runner, so work survives a restart ('running' rows are put back to
-- 'pending' when the runner starts).

CREATE TABLE translations (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    source_space       TEXT NOT NULL,
    source_language    TEXT NOT NULL,
    language           TEXT NOT NULL,
    instructions       TEXT NOT NULL,               -- JSON document
    status             TEXT NOT NULL,               -- pending | running | completed | failed
    queued             INTEGER NOT NULL DEFAULT 0,  -- a run was asked for while one was running
    error_code         TEXT,                        -- failed: PROVIDER_NOT_CONFIGURED | PROVIDER_ERROR | SOURCE_UNAVAILABLE
    error_message      TEXT,
    target_space       TEXT,                        -- the space the runs write (created by the first run)
    result_revision    TEXT,                        -- the revision the latest successful run made
    source_revision    TEXT,                        -- the source revision it translated
    runs               INTEGER NOT NULL DEFAULT 0,
    total_words        INTEGER NOT NULL DEFAULT 0,
    total_pages        INTEGER NOT NULL DEFAULT 0,
    total_duration_ms  INTEGER NOT NULL DEFAULT 0,
    latest_duration_ms INTEGER NOT NULL DEFAULT 0,
    latest_pages       INTEGER NOT NULL DEFAULT 0,
    latest_words       INTEGER NOT NULL DEFAULT 0,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);
CREATE INDEX translations_by_org ON translations (organization_id, created_at, id);
CREATE INDEX translations_queue ON translations (status, updated_at, id);

-- Which target page translates which source page, and from which version of
-- it: a later run translates only the pages whose version changed and keeps
-- target page ids stable.
CREATE TABLE translation_pages (
    translation_id TEXT NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
    source_page    TEXT NOT NULL,
    source_version TEXT NOT NULL,
    target_page    TEXT NOT NULL,
    PRIMARY KEY (translation_id, source_page)
);
