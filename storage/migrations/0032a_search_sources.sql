-- A duplicate shares its source's search index (storage/search_share.go).
-- search_sources is a space's list of the indexes it reads, in order
-- (position 0 first: the space it was duplicated from, then that space's
-- own sources, flattened); chunks: the number of chunks of that source it
-- reads (the source's chunks when the duplicate was made). A chunk of the
-- space's index is the rows of the first of (the space, its sources in
-- order) that holds it: a space holds the chunks it has copied in
-- (search_owned) and every chunk from the next source's chunks on. Before
-- a space changes a chunk a duplicate still reads of it, the duplicate
-- takes in a copy of that chunk (copy on write); purging a source first
-- hands the chunks its forks read to them. search_spaces.shares: 1 the
-- space reads sources, 2 duplicates read it (or did).
CREATE TABLE search_sources (
    space_id  TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    source_id TEXT NOT NULL,
    chunks    INTEGER NOT NULL,
    PRIMARY KEY (space_id, position)
);
CREATE INDEX search_sources_source ON search_sources (source_id);
CREATE TABLE search_owned (
    space_id TEXT NOT NULL,
    chunk    INTEGER NOT NULL,
    PRIMARY KEY (space_id, chunk)
);
ALTER TABLE search_spaces ADD COLUMN shares INTEGER NOT NULL DEFAULT 0;
