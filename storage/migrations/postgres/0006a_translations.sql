-- Translations of a space into another language. The translations table is
-- also the job queue: a row in status 'pending' waits for the background
-- runner, so work survives a restart ('running' rows are put back to
-- 'pending' when the runner starts).

CREATE TABLE translations (
    id                 TEXT COLLATE "C" PRIMARY KEY,
    organization_id    TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    source_space       TEXT COLLATE "C" NOT NULL,
    source_language    TEXT COLLATE "C" NOT NULL,
    language           TEXT COLLATE "C" NOT NULL,
    instructions       TEXT COLLATE "C" NOT NULL,               -- JSON document
    status             TEXT COLLATE "C" NOT NULL,               -- pending | running | completed | failed
    queued             BIGINT NOT NULL DEFAULT 0,  -- a run was asked for while one was running
    error_code         TEXT COLLATE "C",                        -- failed: PROVIDER_NOT_CONFIGURED | PROVIDER_ERROR | SOURCE_UNAVAILABLE
    error_message      TEXT COLLATE "C",
    target_space       TEXT COLLATE "C",                        -- the space the runs write (created by the first run)
    result_revision    TEXT COLLATE "C",                        -- the revision the latest successful run made
    source_revision    TEXT COLLATE "C",                        -- the source revision it translated
    runs               BIGINT NOT NULL DEFAULT 0,
    total_words        BIGINT NOT NULL DEFAULT 0,
    total_pages        BIGINT NOT NULL DEFAULT 0,
    total_duration_ms  BIGINT NOT NULL DEFAULT 0,
    latest_duration_ms BIGINT NOT NULL DEFAULT 0,
    latest_pages       BIGINT NOT NULL DEFAULT 0,
    latest_words       BIGINT NOT NULL DEFAULT 0,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);
CREATE INDEX translations_by_org ON translations (organization_id, created_at, id);
CREATE INDEX translations_queue ON translations (status, updated_at, id);

-- Which target page translates which source page, and from which version of
-- it: a later run translates only the pages whose version changed and keeps
-- target page ids stable.
CREATE TABLE translation_pages (
    translation_id TEXT COLLATE "C" NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
    source_page    TEXT COLLATE "C" NOT NULL,
    source_version TEXT COLLATE "C" NOT NULL,
    target_page    TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (translation_id, source_page)
);
