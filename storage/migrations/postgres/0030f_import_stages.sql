-- Imports and translations written in batches (issue 32). A large new
-- revision's page versions (and file bytes) are stored batch by batch, each
-- batch its own short transaction, before one last transaction publishes
-- the revision. Until then they are staged: content-addressed rows no
-- revision refers to, listed here so that a run that fails, is cancelled or
-- dies leaves nothing behind (DropImportStages: the stage's versions and
-- blobs that nothing else refers to are deleted once its lease is over).
CREATE TABLE import_stages (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL,
    lease_until BIGINT NOT NULL
);
CREATE INDEX import_stages_lease ON import_stages (lease_until);

CREATE TABLE import_stage_rows (
    stage_id TEXT NOT NULL REFERENCES import_stages(id) ON DELETE CASCADE,
    kind     TEXT NOT NULL,  -- version | blob
    hash     TEXT NOT NULL,
    PRIMARY KEY (stage_id, kind, hash)
);
CREATE INDEX import_stage_rows_hash ON import_stage_rows (hash);
