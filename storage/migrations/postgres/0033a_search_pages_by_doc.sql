-- search_pages keyed by doc, not by page. A batched import
-- indexes the pages it changes ahead, as new docs past the space's
-- next_doc, while their old docs are still the ones readers read; the
-- publishing write retires the old docs (search_spaces.retired) and the
-- sweep removes them later (storage/search_retire.go). Between the two a
-- page has two rows; its live one is the doc below next_doc that is not
-- retired. Lookups by page stay an index range (search_pages_page); the
-- key carries the page id, so page ids by doc are read from the index
-- alone (search_pages_doc is no longer needed).
ALTER TABLE search_pages DROP CONSTRAINT search_pages_pkey;
ALTER TABLE search_pages ADD PRIMARY KEY (space_id, doc) INCLUDE (page_id);
DROP INDEX search_pages_doc;
CREATE INDEX search_pages_page ON search_pages (space_id, page_id, doc);
-- The spaces holding retired docs, for the periodic sweep.
CREATE INDEX search_spaces_retired ON search_spaces (space_id) WHERE retired IS NOT NULL;
