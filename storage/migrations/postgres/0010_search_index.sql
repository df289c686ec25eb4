-- The search index of our own in plain tables, the same on both engines
-- (storage/search_index.go), replacing tsvector and GIN. The old index's
-- sections go to search_legacy; the first open after this migration
-- indexes them (backfillSearchIndex) and drops it.
CREATE TABLE search_legacy AS
    SELECT space_id, page_id, section_id, ordinal, title, body FROM search_docs;
CREATE INDEX search_legacy_page ON search_legacy (space_id, page_id);
CREATE TABLE search_backfill (pending BIGINT NOT NULL);
INSERT INTO search_backfill (pending) VALUES (1);
DROP TABLE search_docs;

CREATE TABLE search_spaces (
    space_id  TEXT COLLATE "C" PRIMARY KEY,
    docs      BIGINT NOT NULL,
    total_len BIGINT NOT NULL,
    next_doc  BIGINT NOT NULL
);
CREATE TABLE search_pages (
    space_id TEXT COLLATE "C" NOT NULL,
    page_id  TEXT COLLATE "C" NOT NULL,
    doc      BIGINT NOT NULL,
    sections BYTEA NOT NULL,
    PRIMARY KEY (space_id, page_id)
);
-- Page ids by doc number (the listed results), read from the index alone.
CREATE INDEX search_pages_doc ON search_pages (space_id, doc, page_id);
CREATE TABLE search_chunks (
    space_id TEXT COLLATE "C" NOT NULL,
    chunk    BIGINT NOT NULL,
    lens     BYTEA NOT NULL,
    PRIMARY KEY (space_id, chunk)
);
CREATE TABLE search_postings (
    space_id TEXT COLLATE "C" NOT NULL,
    term     TEXT COLLATE "C" NOT NULL,
    chunk    BIGINT NOT NULL,
    docs     BYTEA NOT NULL,
    PRIMARY KEY (space_id, term, chunk)
);
-- No index by term across spaces (see the SQLite twin).
-- The rows' BLOBs are varints and two-byte lengths, read whole by every
-- query: kept uncompressed (TOAST would compress them for little).
ALTER TABLE search_postings ALTER COLUMN docs SET STORAGE EXTERNAL;
ALTER TABLE search_chunks ALTER COLUMN lens SET STORAGE EXTERNAL;
