-- The search index of our own in plain tables, the same on both engines
-- (storage/search_index.go), replacing FTS5. The old index's sections go to
-- search_legacy; the first open after this migration indexes them
-- (backfillSearchIndex) and drops it.
CREATE TABLE search_legacy AS
    SELECT d.space_id AS space_id, d.page_id AS page_id, d.section_id AS section_id, d.ordinal AS ordinal, s.title AS title, s.body AS body
    FROM search_docs d JOIN search_sections s ON s.rowid = d.rowid;
CREATE INDEX search_legacy_page ON search_legacy (space_id, page_id);
CREATE TABLE search_backfill (pending INTEGER NOT NULL);
INSERT INTO search_backfill (pending) VALUES (1);
DROP TABLE search_sections;
DROP TABLE search_docs;

-- Per space: its indexed pages, their total length (BM25's average) and
-- the next doc number.
CREATE TABLE search_spaces (
    space_id  TEXT PRIMARY KEY,
    docs      INTEGER NOT NULL,
    total_len INTEGER NOT NULL,
    next_doc  INTEGER NOT NULL
);
-- An indexed page: its doc number and its sections (JSON: id, title, body).
CREATE TABLE search_pages (
    space_id TEXT NOT NULL,
    page_id  TEXT NOT NULL,
    doc      INTEGER NOT NULL,
    sections BLOB NOT NULL,
    PRIMARY KEY (space_id, page_id)
);
-- Page ids by doc number (the listed results), read from the index alone.
CREATE INDEX search_pages_doc ON search_pages (space_id, doc, page_id);
-- Per chunk of 4,096 doc numbers: each doc's length, two bytes per doc.
CREATE TABLE search_chunks (
    space_id TEXT NOT NULL,
    chunk    INTEGER NOT NULL,
    lens     BLOB NOT NULL,
    PRIMARY KEY (space_id, chunk)
);
-- Per term and chunk: the docs holding the term, with its frequency.
CREATE TABLE search_postings (
    space_id TEXT NOT NULL,
    term     TEXT NOT NULL,
    chunk    INTEGER NOT NULL,
    docs     BLOB NOT NULL,
    PRIMARY KEY (space_id, term, chunk)
);
-- No index by term across spaces: a search reads the rows of the spaces it
-- searches by the primary key, so its cost follows those spaces, never the
-- other organizations' (storage/search_rank.go readPostings).
