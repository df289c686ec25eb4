-- Follow-ups of the content engine (0003_content).
-- Named 0003a so that it sorts right after 0003_content on every database.

-- Revision variables (map of name to string, number or boolean) and
-- reusable contents ([{id, title, document?}]), carried from a revision to
-- the next one unless a change sets them.
ALTER TABLE revisions ADD COLUMN variables TEXT COLLATE "C" NOT NULL DEFAULT '{}';
ALTER TABLE revisions ADD COLUMN reusable_contents TEXT COLLATE "C" NOT NULL DEFAULT '[]';

-- A relative link that matched nothing when its page version was written
-- keeps what to look for: lookup (and lookup_alt, a second candidate) is the
-- page path (kind page) or the file name (kind file) it names. Every new
-- revision resolves such links against its own pages and files in one
-- statement (revision_link_targets), so a link to a page created later
-- becomes ok without reparsing the linking page.
ALTER TABLE page_links ADD COLUMN lookup TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE page_links ADD COLUMN lookup_alt TEXT COLLATE "C" NOT NULL DEFAULT '';

CREATE TABLE revision_link_targets (
    revision_id TEXT COLLATE "C" NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
    version     TEXT COLLATE "C" NOT NULL,
    ordinal     BIGINT NOT NULL,
    target      TEXT COLLATE "C" NOT NULL,              -- the page or file id the link resolved to in this revision
    PRIMARY KEY (revision_id, version, ordinal)
);
CREATE INDEX revision_link_targets_target ON revision_link_targets (revision_id, target);

-- Garbage collection of shared content (a purged space's page versions and
-- file bytes no other revision uses) looks rows up by what they point at.
CREATE INDEX revision_pages_version ON revision_pages (version);
CREATE INDEX revision_files_blob ON revision_files (blob);
