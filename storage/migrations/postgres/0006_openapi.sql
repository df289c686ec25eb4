-- OpenAPI specifications of an organization and the versions their
-- processing produced. The specs table is also the processing queue: a row
-- in state 'pending' waits for the background processor, so work survives a
-- restart.

CREATE TABLE openapi_specs (
    id                 TEXT COLLATE "C" PRIMARY KEY,
    organization_id    TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    slug               TEXT COLLATE "C" NOT NULL,
    source_url         TEXT COLLATE "C",                 -- exactly one of source_url, source_text
    source_text        TEXT COLLATE "C",
    visibility         TEXT COLLATE "C" NOT NULL DEFAULT 'private',  -- private | public
    processing_state   TEXT COLLATE "C" NOT NULL,        -- pending | progress | complete
    generation         BIGINT NOT NULL DEFAULT 1,       -- bumped by every new source; a run commits only for its own
    last_version       TEXT COLLATE "C",
    last_processed_at  BIGINT,
    last_error_code    TEXT COLLATE "C",                 -- FETCH_TIMEOUT | FETCH_ERROR | PARSE_ERROR
    last_error_message TEXT COLLATE "C",
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    UNIQUE (organization_id, slug)
);
CREATE INDEX openapi_specs_by_org ON openapi_specs (organization_id, created_at, id);
CREATE INDEX openapi_specs_queue ON openapi_specs (processing_state, updated_at, id);

CREATE TABLE openapi_spec_versions (
    id           TEXT COLLATE "C" PRIMARY KEY,
    spec_id      TEXT COLLATE "C" NOT NULL REFERENCES openapi_specs(id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL,
    title        TEXT COLLATE "C" NOT NULL,              -- info.title
    version      TEXT COLLATE "C" NOT NULL,              -- info.version
    openapi      TEXT COLLATE "C" NOT NULL,              -- the document's openapi field (3.0.x, 3.1.x)
    format       TEXT COLLATE "C" NOT NULL,              -- json | yaml
    content_hash TEXT COLLATE "C" NOT NULL,              -- sha256:<hex> of document
    source_url   TEXT COLLATE "C",                       -- the URL it was fetched from, when any
    document     BYTEA NOT NULL               -- the document as received
);
CREATE INDEX openapi_spec_versions_by_spec ON openapi_spec_versions (spec_id, created_at, id);
