-- See the SQLite migration of the same name (storage/search_share.go).
CREATE TABLE search_sources (
    space_id  TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    source_id TEXT NOT NULL,
    chunks    BIGINT NOT NULL,
    PRIMARY KEY (space_id, position)
);
CREATE INDEX search_sources_source ON search_sources (source_id);
CREATE TABLE search_owned (
    space_id TEXT COLLATE "C" NOT NULL,
    chunk    BIGINT NOT NULL,
    PRIMARY KEY (space_id, chunk)
);
ALTER TABLE search_spaces ADD COLUMN shares INTEGER NOT NULL DEFAULT 0;
