-- Revision content stored as changes: a write costs rows in
-- proportion to what changed, not to the size of the space.
--
-- Main line. The revisions a space activates get, in activation order, a
-- per-space sequence number (revisions.seq). The pages of the main line
-- live in main_pages as intervals: a row holds a page's version and place
-- from the revision at from_seq up to (not including) the one at to_seq,
-- to_seq being 9000000000000000000 while the row is alive. The revision at
-- seq s is the rows with from_seq <= s < to_seq; the active revision (always
-- the last of the main line) is the alive rows, which main_pages_alive
-- serves exactly. Activating a revision that differs from the active one by
-- k pages closes k rows and inserts k rows.
--
-- Overlays. Every other revision (change-request heads, update revisions, a
-- revision written without activation) holds in overlay_pages its whole
-- difference from the main-line revision at revisions.base_seq: a row per
-- page added, changed or moved (version '' marks a page removed). Its pages
-- are its rows plus the rows of main@base_seq it does not override. An
-- overlay without a base (seq and base_seq NULL) is a full snapshot: a
-- space's empty first revision, and every revision this migration moves.
--
-- Positions are sibling-local: a gapped integer among the page's siblings
-- (65536 apart when a sibling list is numbered), so a page inserted or moved
-- takes a free value between its neighbours and only that page's row is
-- written; tree order is assembled from (parent_id, position) when a whole
-- tree is read.
--
-- Links are resolved when read (storage/links.go), against the revision's
-- pages and files through these indexes: revision_link_targets and
-- revision_broken_links (rows per revision and link) go away.
ALTER TABLE revisions ADD COLUMN seq BIGINT;
ALTER TABLE revisions ADD COLUMN base_seq BIGINT;
-- Partial: a new space's first revision (no seq) writes no entry here.
CREATE UNIQUE INDEX revisions_seq ON revisions (space_id, seq) WHERE seq IS NOT NULL;

CREATE TABLE main_pages (
    space_id  TEXT COLLATE "C" NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    page_id   TEXT COLLATE "C" NOT NULL,
    from_seq  BIGINT NOT NULL,
    to_seq    BIGINT NOT NULL,
    version   TEXT COLLATE "C" NOT NULL REFERENCES page_versions(hash),
    parent_id TEXT COLLATE "C" NOT NULL DEFAULT '',
    position  BIGINT NOT NULL,
    path      TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (space_id, page_id, from_seq)
);
CREATE INDEX main_pages_alive ON main_pages (space_id, to_seq, parent_id, position);
CREATE INDEX main_pages_path ON main_pages (space_id, path, to_seq);
CREATE INDEX main_pages_version ON main_pages (version);

CREATE TABLE overlay_pages (
    revision_id TEXT COLLATE "C" NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
    page_id     TEXT COLLATE "C" NOT NULL,
    version     TEXT COLLATE "C" NOT NULL,              -- '' : removed from main@base_seq
    parent_id   TEXT COLLATE "C" NOT NULL DEFAULT '',
    position    BIGINT NOT NULL,
    path        TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (revision_id, page_id)
);
CREATE INDEX overlay_pages_children ON overlay_pages (revision_id, parent_id, position);
CREATE INDEX overlay_pages_path ON overlay_pages (revision_id, path);
CREATE INDEX overlay_pages_version ON overlay_pages (version);

-- Each space's active revision becomes seq 1 of its main line; every other
-- revision a full snapshot. Pre-order ranks become sibling-local ranks.
UPDATE revisions SET seq = 1 WHERE id IN (SELECT revision_id FROM spaces);
INSERT INTO main_pages (space_id, page_id, from_seq, to_seq, version, parent_id, position, path)
SELECT s.id, rp.page_id, 1, 9000000000000000000, rp.version, rp.parent_id,
       65536 * ROW_NUMBER() OVER (PARTITION BY rp.revision_id, rp.parent_id ORDER BY rp.position), rp.path
FROM spaces s JOIN revision_pages rp ON rp.revision_id = s.revision_id;
INSERT INTO overlay_pages (revision_id, page_id, version, parent_id, position, path)
SELECT rp.revision_id, rp.page_id, rp.version, rp.parent_id,
       65536 * ROW_NUMBER() OVER (PARTITION BY rp.revision_id, rp.parent_id ORDER BY rp.position), rp.path
FROM revision_pages rp WHERE rp.revision_id NOT IN (SELECT revision_id FROM spaces);

DROP TABLE revision_link_targets;
DROP TABLE revision_broken_links;
DROP TABLE revision_pages;
