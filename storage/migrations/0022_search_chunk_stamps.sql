-- Per chunk of a space's search index a random stamp, 8 bytes per chunk
-- (chunk n at offset 8n), changed by every write of that chunk's rows
-- (search_postings, search_chunks and the search_pages of its docs): the
-- in-process cache of decoded index rows (storage/search_cache.go) keeps
-- what it read of a chunk under its stamp, so a one-page edit sends only
-- that page's chunk back to the database. Random, not counted: a dropped
-- and rebuilt index, a copied database or another process's write never
-- repeats a stamp the cache may hold.
ALTER TABLE search_spaces ADD COLUMN stamps BLOB;
UPDATE search_spaces SET stamps = randomblob(8 * (next_doc / 4096 + 1));
