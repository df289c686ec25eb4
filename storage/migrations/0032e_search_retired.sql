-- Per space, the docs of its search index that readers skip
-- (storage/search_retire.go): per chunk holding any, its number (uvarint)
-- and a bitmap of its 4,096 docs (512 bytes), read with the stats row.
-- A doc that is retired still has its posting and length rows until they
-- are rewritten; ranking skips it and counts no term's doc frequency with
-- it. NULL: none (nothing writes it yet).
ALTER TABLE search_spaces ADD COLUMN retired BLOB;
