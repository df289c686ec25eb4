-- The spaces whose purge has begun (storage/space_purge.go): their content
-- is deleted in bounded writes, and from the first of them on the space can
-- no longer be restored; a sweep that stopped halfway finishes it.
CREATE TABLE space_purges (
    space_id TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE
);
