-- Content of revisions: pages, files, links and the search index.
--
-- Structural sharing: a page's content lives once in page_versions, keyed by
-- the SHA-256 of its canonical content (a content address). A revision is a
-- list of small revision_pages rows (page id -> version, tree position,
-- derived path); a revision that changes one page adds one page_versions row
-- and points its other rows at the versions its parent already had. File
-- bytes are shared the same way through file_blobs. Links are parsed once per
-- page version (page_links); a revision stores only which of them are broken.

CREATE TABLE page_versions (
    hash        TEXT PRIMARY KEY,           -- SHA-256 of the canonical content
    page_id     TEXT NOT NULL,
    type        TEXT NOT NULL,              -- document | group | link
    title       TEXT NOT NULL,
    slug        TEXT NOT NULL,
    markdown    TEXT NOT NULL DEFAULT '',   -- body of document pages
    meta        TEXT NOT NULL DEFAULT '{}', -- JSON: emoji, icon, description, layout, cover, variables, flags, link target
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE revision_pages (
    revision_id TEXT NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
    page_id     TEXT NOT NULL,
    version     TEXT NOT NULL REFERENCES page_versions(hash),
    parent_id   TEXT NOT NULL DEFAULT '',   -- '' for top-level pages
    position    INTEGER NOT NULL,           -- pre-order rank in the whole tree
    path        TEXT NOT NULL,              -- derived from the slugs; unique within the revision
    PRIMARY KEY (revision_id, page_id)
);
CREATE INDEX revision_pages_order ON revision_pages (revision_id, position);
CREATE INDEX revision_pages_path ON revision_pages (revision_id, path);

-- Links a page version makes, resolved when the version was written.
CREATE TABLE page_links (
    version  TEXT NOT NULL REFERENCES page_versions(hash),
    ordinal  INTEGER NOT NULL,
    kind     TEXT NOT NULL,                 -- page | file | url | space | collection
    target   TEXT NOT NULL,                 -- page/file/space/collection id, or the URL; '' when unresolved
    dest     TEXT NOT NULL,                 -- the destination as written
    in_app   INTEGER NOT NULL DEFAULT 0,    -- the URL points into this service's app
    PRIMARY KEY (version, ordinal)
);
CREATE INDEX page_links_target ON page_links (kind, target);

-- Links that are broken in a revision (target missing there).
CREATE TABLE revision_broken_links (
    revision_id TEXT NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
    version     TEXT NOT NULL,
    ordinal     INTEGER NOT NULL,
    PRIMARY KEY (revision_id, version, ordinal)
);

CREATE TABLE file_blobs (
    hash         TEXT PRIMARY KEY,          -- SHA-256 of the bytes
    bytes        BLOB NOT NULL,
    size         INTEGER NOT NULL,
    width        INTEGER,                   -- images only, read from the image
    height       INTEGER
);

CREATE TABLE revision_files (
    revision_id  TEXT NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
    file_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    blob         TEXT NOT NULL REFERENCES file_blobs(hash),
    PRIMARY KEY (revision_id, file_id)
);
CREATE INDEX revision_files_name ON revision_files (revision_id, name);

-- Full-text index of the active revision of every space: one row per
-- heading-delimited section. FTS5 is the one SQLite-specific part of the
-- storage (storage/search.go); a PostgreSQL backend would use tsvector.
-- search_docs holds the non-text columns by rowid so that a page's rows are
-- found through an index when the page changes.
CREATE TABLE search_docs (
    rowid      INTEGER PRIMARY KEY,
    space_id   TEXT NOT NULL,
    page_id    TEXT NOT NULL,
    section_id TEXT NOT NULL,
    ordinal    INTEGER NOT NULL
);
CREATE INDEX search_docs_page ON search_docs (space_id, page_id);
CREATE VIRTUAL TABLE search_sections USING fts5(title, body, tokenize = 'unicode61 remove_diacritics 2');
