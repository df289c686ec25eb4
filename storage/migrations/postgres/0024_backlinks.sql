-- Backlinks from the links' side: a page's or a file's backlinks
-- are found through the link rows that name it, not by testing every page
-- of the revision (storage/links.go, Backlinks).
--
-- A relative link that matched nothing when its version was written
-- (target '') is found by what it looks up: the target page's path
-- (lookup, or lookup_alt while lookup names no page) or the file's name.
-- Partial: resolved links (the most) are not in them.
CREATE INDEX page_links_lookup ON page_links (kind, lookup) WHERE target = '';
CREATE INDEX page_links_lookup_alt ON page_links (kind, lookup_alt) WHERE target = '';
-- A linking version's row in one space's main line, or in one overlay:
-- a version is shared by every space duplicated from the same content and
-- by every overlay that carries the page, so the seek names the space (the
-- revision) too. Garbage collection's reads by version alone still use them.
DROP INDEX IF EXISTS main_pages_version;
CREATE INDEX main_pages_version ON main_pages (version, space_id);
DROP INDEX IF EXISTS overlay_pages_version;
CREATE INDEX overlay_pages_version ON overlay_pages (version, revision_id);
-- A file link that matched nothing when written means the revision's first
-- file of its name (MIN(file_id) by revision and name): with file_id in the
-- index that is one seek; without it SQLite walked the revision's files in
-- file_id order (the primary key) until one had the name.
DROP INDEX IF EXISTS revision_files_name;
CREATE INDEX revision_files_name ON revision_files (revision_id, name, file_id);
