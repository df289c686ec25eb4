-- Per group of 256 doc numbers of a space's search index a random stamp,
-- 8 bytes per group (group n at offset 8n), changed by every write of its
-- docs: the in-process cache of decoded index rows
-- (storage/search_cache.go) keeps a chunk's posting and length rows under
-- the combined stamps of its 16 groups and a page's search_pages row under
-- its group's, so a one-page edit sends only that page's chunk and group
-- back to the database. Random, not counted: a dropped
-- and rebuilt index, a copied database or another process's write never
-- repeats a stamp the cache may hold.
ALTER TABLE search_spaces ADD COLUMN stamps BYTEA;
UPDATE search_spaces SET stamps = (
    SELECT string_agg(substring(decode(md5(random()::text || search_spaces.space_id || g::text), 'hex') FROM 1 FOR 8), ''::bytea ORDER BY g)
    FROM generate_series(0, next_doc / 256) AS g);
