-- A parent's alive children in their order, read from the index: an edit on
-- the main line (createPage, movePage) reads the few siblings around the
-- place it inserts at, ORDER BY position, page_id LIMIT k. With the index
-- ending at position PostgreSQL read and sorted every child of the parent
-- (a top-N sort under the LIMIT, chosen whenever its estimate of the
-- parent's children is small, as right after a bulk write before any
-- ANALYZE): the cost grew with the parent's children. With page_id last the
-- index gives that order itself, and the read stops after k entries. It
-- serves every read main_pages_alive served (same leading columns).
DROP INDEX main_pages_alive;
CREATE INDEX main_pages_alive ON main_pages (space_id, to_seq, parent_id, position, page_id);
