-- A duplicate shares its source's main line: a space made by
-- DuplicateSpace reads, for every page it has no main_pages row of its
-- own, the rows of its sources as they were when it was made. Its sources
-- in order (position 0 first): the space it was duplicated from, then
-- that space's own sources (the list is flattened when the duplicate is
-- made, so a read never walks a chain). cap_seq is the last main-line
-- sequence number the duplicate reads of that source. A page's rows come
-- from the first of (the space, its sources in order) that has any row of
-- it. The duplicate's first write to an inherited page copies that page's
-- rows in (copy on first write); purging a source first hands the rows
-- its forks still read to them (storage/space_sources.go).
CREATE TABLE space_sources (
    space_id  TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    source_id TEXT NOT NULL,
    cap_seq   BIGINT NOT NULL,
    PRIMARY KEY (space_id, position)
);
CREATE INDEX space_sources_source ON space_sources (source_id);
