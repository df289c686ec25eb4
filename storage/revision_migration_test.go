package storage

import (
	"context"
	"fmt"
	"strconv"
	"testing"
)

// revisionSnapshot is what a revision reads as: its pages in tree order
// (id, parent, path, version) and its links with their status and target.
func revisionSnapshot(t *testing.T, db *DB, rev string) string {
	t.Helper()
	ctx := context.Background()
	pages, err := db.RevisionPages(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, p := range pages {
		out += fmt.Sprintf("%s<%s>%s=%s ", p.ID, p.ParentID, p.Path, p.Version[:8])
	}
	links, stats, err := db.ListLinks(ctx, rev, "", "", PageQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links.Items {
		out += fmt.Sprintf("| %s %s %s %v ", l.Kind, l.Target, l.Status, l.PageIDs)
	}
	return out + fmt.Sprintf("| %+v", stats)
}

// A database written before 0020_revision_changes (one revision_pages row
// per page per revision, pre-order positions, stored link resolutions) is
// migrated and every revision reads the same; the space's content then goes
// on changing.
func TestRevisionMigrationFromRevisionPages(t *testing.T) {
	ctx := context.Background()
	target := testTarget(t)
	db, err := Open(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.CreateOrganizationWithAdmin(ctx, "o", "a@b.c", "a", "h")
	if err != nil {
		t.Fatal(err)
	}
	sp := &Space{OrganizationID: b.Organization.ID, Title: "s", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, sp); err != nil {
		t.Fatal(err)
	}
	// Content written by the current code: a tree, edits, a change request.
	m := &mTree{files: map[string]string{}}
	for i := range 12 {
		id := "p" + strconv.Itoa(i)
		p := &mPage{id: id, title: id, slug: id, link: "p" + strconv.Itoa((i+5)%14)}
		p.body = "body link:" + p.link
		if i%3 == 0 || len(m.pages) == 0 {
			m.pages = append(m.pages, p)
		} else {
			last := m.pages[len(m.pages)-1]
			last.children = append(last.children, p)
		}
	}
	edit := func(c RevisionChange, m *mTree, edited map[string]bool) string {
		t.Helper()
		c.SpaceID, c.Analyzer = sp.ID, modelAnalyzer{}
		c.Edit = func(tr *Tree) error { syncTree(tr, m, edited, db.Now()); return nil }
		rev, err := db.CreateRevision(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	revs := []string{sp.RevisionID, edit(RevisionChange{Activate: true}, m, nil)}
	m.pages[0].body, m.pages[1].slug = "changed link:p1", "moved"
	m.pages[2].children, m.pages[0].children = m.pages[0].children, nil
	revs = append(revs, edit(RevisionChange{Activate: true}, m, map[string]bool{"p0": true}))
	cr, err := db.CreateChangeRequest(ctx, "", sp.ID, b.User.ID, "cr", nil)
	if err != nil {
		t.Fatal(err)
	}
	m.pages = m.pages[1:]
	revs = append(revs, edit(RevisionChange{ChangeRequest: cr.ID, Author: b.User.ID}, m, nil))
	want := map[string]string{}
	for _, r := range revs {
		want[r] = revisionSnapshot(t, db, r)
	}

	// Turn the database back into what the migration finds: the old tables
	// filled from what each revision reads, the new ones gone.
	db = migrateAgain(t, db, target, "0020_revision_changes.sql", func(tx *Tx) error {
		if err := execAll(tx,
			`CREATE TABLE revision_pages (revision_id TEXT NOT NULL REFERENCES revisions(id) ON DELETE CASCADE, page_id TEXT NOT NULL,
 version TEXT NOT NULL REFERENCES page_versions(hash), parent_id TEXT NOT NULL DEFAULT '', position INTEGER NOT NULL, path TEXT NOT NULL,
 PRIMARY KEY (revision_id, page_id))`,
			`CREATE TABLE revision_broken_links (revision_id TEXT NOT NULL, version TEXT NOT NULL, ordinal INTEGER NOT NULL, PRIMARY KEY (revision_id, version, ordinal))`,
			`CREATE TABLE revision_link_targets (revision_id TEXT NOT NULL, version TEXT NOT NULL, ordinal INTEGER NOT NULL, target TEXT NOT NULL, PRIMARY KEY (revision_id, version, ordinal))`,
		); err != nil {
			return err
		}
		for _, r := range revs {
			pages, err := revisionPages(tx.ctx, tx, r, "", "")
			if err != nil {
				return err
			}
			for i, p := range inTreeOrder(pages) {
				if _, err := tx.exec(`INSERT INTO revision_pages (revision_id, page_id, version, parent_id, position, path) VALUES (?, ?, ?, ?, ?, ?)`,
					r, p.ID, p.Version, p.ParentID, i, p.Path); err != nil {
					return err
				}
			}
		}
		return execAll(tx,
			`DROP TABLE main_pages`, `DROP TABLE overlay_pages`, `DROP INDEX revisions_seq`,
			`ALTER TABLE revisions DROP COLUMN seq`, `ALTER TABLE revisions DROP COLUMN base_seq`)
	})
	for _, r := range revs {
		if got := revisionSnapshot(t, db, r); got != want[r] {
			t.Errorf("revision %s after the migration:\n got %s\nwant %s", r, got, want[r])
		}
	}
	if n := count(t, db, `SELECT COUNT(*) FROM revisions WHERE seq = 1`); n != 1 {
		t.Errorf("main lines started: %d, want 1 (the active revision)", n)
	}
	// The content goes on: the main line continues at seq 2.
	m.pages[0].body = "after the migration"
	head := edit(RevisionChange{Activate: true}, m, map[string]bool{m.pages[0].id: true})
	if got, err := db.RevisionPage(ctx, head, m.pages[0].id, false); err != nil || got.Markdown != "after the migration" {
		t.Fatalf("edit after the migration: %+v %v", got, err)
	}
	if n := count(t, db, `SELECT seq FROM revisions WHERE id = ?`, head); n != 2 {
		t.Errorf("seq of the edit after the migration: %d, want 2", n)
	}
	for _, r := range revs {
		if got := revisionSnapshot(t, db, r); got != want[r] {
			t.Errorf("revision %s after an edit:\n got %s\nwant %s", r, got, want[r])
		}
	}
}
