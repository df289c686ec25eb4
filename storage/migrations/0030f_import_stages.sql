-- Imports and translations written in batches. A large new
-- revision's page versions (and file bytes) are stored batch by batch, each
-- batch its own short transaction, before one last transaction publishes
-- the revision. Until then they are staged: content-addressed rows no
-- revision refers to, listed here so that a run that fails, is cancelled or
-- dies leaves nothing behind (DropExpiredImportStages: the stage's versions
-- and blobs that nothing else refers to are deleted once its lease is
-- over). import_stage_pages are the main-line rows the revision will have,
-- copied into main_pages by the publishing write in one statement.
CREATE TABLE import_stages (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL,
    published   INTEGER NOT NULL DEFAULT 0,  -- 1: its revision is out, only the list is left to drop
    lease_until INTEGER NOT NULL
);
CREATE INDEX import_stages_lease ON import_stages (lease_until);

CREATE TABLE import_stage_rows (
    stage_id TEXT NOT NULL REFERENCES import_stages(id) ON DELETE CASCADE,
    kind     TEXT NOT NULL,  -- version | blob
    hash     TEXT NOT NULL,
    PRIMARY KEY (stage_id, kind, hash)
);
CREATE INDEX import_stage_rows_hash ON import_stage_rows (hash);

CREATE TABLE import_stage_pages (
    stage_id  TEXT NOT NULL REFERENCES import_stages(id) ON DELETE CASCADE,
    page_id   TEXT NOT NULL,
    version   TEXT NOT NULL,
    parent_id TEXT NOT NULL,
    position  INTEGER NOT NULL,
    path      TEXT NOT NULL,
    PRIMARY KEY (stage_id, page_id)
);
