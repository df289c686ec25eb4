-- OpenAPI specifications of an organization and the versions their
-- processing produced. The specs table is also the processing queue: a row
-- in state 'pending' waits for the background processor, so work survives a
-- restart.

CREATE TABLE openapi_specs (
    id                 TEXT PRIMARY KEY,
    organization_id    TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    slug               TEXT NOT NULL,
    source_url         TEXT,                 -- exactly one of source_url, source_text
    source_text        TEXT,
    visibility         TEXT NOT NULL DEFAULT 'private',  -- private | public
    processing_state   TEXT NOT NULL,        -- pending | progress | complete
    generation         INTEGER NOT NULL DEFAULT 1,       -- bumped by every new source; a run commits only for its own
    last_version       TEXT,
    last_processed_at  INTEGER,
    last_error_code    TEXT,                 -- FETCH_TIMEOUT | FETCH_ERROR | PARSE_ERROR
    last_error_message TEXT,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    UNIQUE (organization_id, slug)
);
CREATE INDEX openapi_specs_by_org ON openapi_specs (organization_id, created_at, id);
CREATE INDEX openapi_specs_queue ON openapi_specs (processing_state, updated_at, id);

CREATE TABLE openapi_spec_versions (
    id           TEXT PRIMARY KEY,
    spec_id      TEXT NOT NULL REFERENCES openapi_specs(id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    title        TEXT NOT NULL,              -- info.title
    version      TEXT NOT NULL,              -- info.version
    openapi      TEXT NOT NULL,              -- the document's openapi field (3.0.x, 3.1.x)
    format       TEXT NOT NULL,              -- json | yaml
    content_hash TEXT NOT NULL,              -- sha256:<hex> of document
    source_url   TEXT,                       -- the URL it was fetched from, when any
    document     BLOB NOT NULL               -- the document as received
);
CREATE INDEX openapi_spec_versions_by_spec ON openapi_spec_versions (spec_id, created_at, id);
