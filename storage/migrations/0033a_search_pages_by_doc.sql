-- search_pages keyed by doc, not by page. A batched import
-- indexes the pages it changes ahead, as new docs past the space's
-- next_doc, while their old docs are still the ones readers read; the
-- publishing write retires the old docs (search_spaces.retired) and the
-- sweep removes them later (storage/search_retire.go). Between the two a
-- page has two rows; its live one is the doc below next_doc that is not
-- retired. Lookups by page stay an index range (search_pages_page).
CREATE TABLE search_pages_by_doc (
    space_id TEXT NOT NULL,
    doc      INTEGER NOT NULL,
    page_id  TEXT NOT NULL,
    sections BLOB NOT NULL,
    PRIMARY KEY (space_id, doc)
);
INSERT INTO search_pages_by_doc (space_id, doc, page_id, sections) SELECT space_id, doc, page_id, sections FROM search_pages;
DROP TABLE search_pages;
ALTER TABLE search_pages_by_doc RENAME TO search_pages;
-- Page ids by doc number (the listed results), read from the index alone.
CREATE INDEX search_pages_doc ON search_pages (space_id, doc, page_id);
CREATE INDEX search_pages_page ON search_pages (space_id, page_id, doc);
-- The spaces holding retired docs, for the periodic sweep.
CREATE INDEX search_spaces_retired ON search_spaces (space_id) WHERE retired IS NOT NULL;
