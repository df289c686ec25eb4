-- Main-line rows by the revision that wrote them: merging or
-- updating a change request reads what the main line changed since the
-- change request's base, the rows written after base_seq (from_seq) and
-- those closed after it (to_seq, main_pages_alive), in proportion to that
-- change instead of every row of the space.
CREATE INDEX main_pages_from ON main_pages (space_id, from_seq);
