package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPageEditsShareTheRevisionsFiles: a revision whose files are those of
// the revision it was made from writes no revision_files row (a page edit
// through the partial path or the whole tree, a change request's edit)
// and reads the same files; a revision that changes its files holds rows
// of its own, which the next edits share; a duplicate's revisions read
// their files after the original is purged, and a purge removes the
// purged space's rows.
func TestPageEditsShareTheRevisionsFiles(t *testing.T) {
	ctx := context.Background()
	db, sp := testSpace(t)
	var user string
	if err := db.r().QueryRowContext(ctx, `SELECT MIN(id) FROM users`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	fileRows := func() int { return count(t, db, `SELECT COUNT(*) FROM revision_files`) }
	filesOf := func(rev string) string {
		t.Helper()
		files, err := db.RevisionFiles(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range files {
			out = append(out, f.ID+"="+f.Name+"@"+f.Blob)
		}
		return fmt.Sprint(out)
	}
	addFiles := func(names ...string) func(tr *Tree) error {
		return func(tr *Tree) error {
			for _, n := range names {
				tr.Files = append(tr.Files, &File{ID: "f-" + n, Name: n, ContentType: "text/plain", Bytes: []byte("bytes of " + n)})
			}
			return nil
		}
	}
	write := func(c RevisionChange) string {
		t.Helper()
		c.SpaceID, c.Analyzer = sp.ID, testAnalyzer{}
		if c.ChangeRequest != "" {
			c.Author = user
		}
		if c.ChangeRequest == "" {
			c.Activate = true
		}
		rev, err := db.CreateRevision(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}

	first := write(RevisionChange{Edit: func(tr *Tree) error {
		tr.Pages = append(tr.Pages, &TreePage{ContentPage: ContentPage{ID: "p1", Type: "document", Title: "One", Slug: "one", Markdown: "one"}, Dirty: true})
		return addFiles("a.png", "b.png", "c.txt")(tr)
	}})
	if n := fileRows(); n != 3 {
		t.Fatalf("rows after the first revision: %d, want 3", n)
	}
	want := filesOf(first)

	// Page edits: the partial path, the whole tree, a content edit.
	insert := write(RevisionChange{Pages: func(pt PageTree) error {
		return pt.Insert(&TreePage{ContentPage: ContentPage{ID: "p2", Type: "document", Title: "Two", Slug: "two", Markdown: "two"}, Dirty: true}, "", nil)
	}})
	whole := write(RevisionChange{WholeTree: true, Pages: func(pt PageTree) error { return pt.Move("p2", "p1", nil) }})
	content := write(RevisionChange{Page: "p1", Edit: func(tr *Tree) error { tr.Pages[0].SetBody("one, again"); return nil }})
	for _, rev := range []string{insert, whole, content} {
		if got := filesOf(rev); got != want {
			t.Fatalf("files of %s: %s, want %s", rev, got, want)
		}
		f, err := db.RevisionFile(ctx, rev, "f-b.png")
		if err != nil || f.Name != "b.png" {
			t.Fatalf("file f-b.png of %s: %+v %v", rev, f, err)
		}
		page, err := db.ListRevisionFiles(ctx, rev, PageQuery{Limit: 2})
		if err != nil || len(page.Items) != 2 || page.Items[0].Name != "a.png" || page.Next == nil {
			t.Fatalf("first page of the files of %s: %+v %v", rev, page, err)
		}
	}
	if n := fileRows(); n != 3 {
		t.Fatalf("rows after three page edits: %d, want 3 (the edits share the first revision's)", n)
	}

	// A change request's edit shares its head's files too.
	cr, err := db.CreateChangeRequest(ctx, "", sp.ID, user, "CR", nil)
	if err != nil {
		t.Fatal(err)
	}
	crRev := write(RevisionChange{ChangeRequest: cr.ID, Pages: func(pt PageTree) error {
		return pt.Insert(&TreePage{ContentPage: ContentPage{ID: "p3", Type: "document", Title: "Three", Slug: "three", Markdown: "three"}, Dirty: true}, "", nil)
	}})
	if got := filesOf(crRev); got != want || fileRows() != 3 {
		t.Fatalf("change request's edit: files %s (want %s), %d rows (want 3)", got, want, fileRows())
	}

	// New files: the revision holds rows of its own; the next edit shares them.
	upload := write(RevisionChange{Edit: addFiles("d.pdf")})
	if n := fileRows(); n != 7 {
		t.Fatalf("rows after an upload: %d, want 7 (3 + the new revision's 4)", n)
	}
	withUpload := filesOf(upload)
	after := write(RevisionChange{Pages: func(pt PageTree) error { return pt.Delete("p2") }})
	if got := filesOf(after); got != withUpload || fileRows() != 7 {
		t.Fatalf("edit after the upload: files %s (want %s), %d rows (want 7)", got, withUpload, fileRows())
	}
	if got := filesOf(content); got != want {
		t.Fatalf("an older revision's files changed: %s, want %s", got, want)
	}
	// A file removed: rows of its own again.
	removed := write(RevisionChange{Edit: func(tr *Tree) error {
		tr.Files = slices.DeleteFunc(tr.Files, func(f *File) bool { return f.Name == "a.png" })
		return nil
	}})
	if got := filesOf(removed); got == withUpload || fileRows() != 10 {
		t.Fatalf("a file removed: files %s, %d rows (want 10)", got, fileRows())
	}

	// A duplicate reads the same files in every revision, also once the
	// original is purged, and the purge takes the original's rows.
	dup, err := db.DuplicateSpace(ctx, sp.ID, "Copy")
	if err != nil {
		t.Fatal(err)
	}
	dupHead, err := db.SpaceHead(ctx, dup)
	if err != nil {
		t.Fatal(err)
	}
	dupRevs := count(t, db, `SELECT COUNT(*) FROM revisions WHERE space_id = ?`, dup)
	headFiles := filesOf(removed)
	if n := count(t, db, `SELECT COUNT(*) FROM revision_files f JOIN revisions r ON r.id = f.revision_id WHERE r.space_id = ?`, dup); n != 10 {
		t.Fatalf("the duplicate holds %d file rows, want the original's 10 (its revisions share as the original's do)", n)
	}
	if _, err := db.TrashSpace(ctx, sp.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := db.PurgeSpaces(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if got := filesOf(dupHead.Revision); got != headFiles {
		t.Fatalf("the duplicate's files after the purge: %s, want %s", got, headFiles)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM revision_files f JOIN revisions r ON r.id = f.revision_id WHERE r.space_id = ?`, sp.ID); n != 0 {
		t.Fatalf("%d rows of the purged space left", n)
	}
	// Every revision of the duplicate reads files (none lost its owner).
	rows, err := db.r().QueryContext(ctx, `SELECT id FROM revisions WHERE space_id = ?`, dup)
	var ids []string
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var id string
		err := sc.Scan(&id)
		ids = append(ids, id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != dupRevs {
		t.Fatalf("%d revisions of the duplicate, want %d", len(ids), dupRevs)
	}
	nonEmpty := 0
	for _, id := range ids {
		if filesOf(id) != "[]" {
			nonEmpty++
		}
	}
	if nonEmpty != len(ids)-1 { // all but the space's empty first revision
		t.Fatalf("%d of the duplicate's %d revisions read files, want all but the first", nonEmpty, len(ids))
	}
	if n := count(t, db, `SELECT COUNT(*) FROM revisions WHERE files_of IS NOT NULL AND files_of NOT IN (SELECT id FROM revisions WHERE files_of IS NULL)`); n != 0 {
		t.Fatalf("%d revisions share the files of a revision that is gone or shares itself", n)
	}
}

// BenchmarkPageEditWithFiles: a one-page content edit (through PageTree, as
// the resolvers edit; the body links a file by name) in a space of 1,000
// and 10,000 files (`go test ./storage -run X -bench PageEditWithFiles`).
func BenchmarkPageEditWithFiles(b *testing.B) {
	for _, files := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			ctx := context.Background()
			db, sp := testSpace(b)
			if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: testAnalyzer{}, Edit: func(tr *Tree) error {
				tr.Pages = append(tr.Pages, &TreePage{ContentPage: ContentPage{ID: "p", Type: "document", Title: "P", Slug: "p", Markdown: "p"}, Dirty: true})
				for i := range files {
					n := fmt.Sprintf("image-%d.png", i)
					tr.Files = append(tr.Files, &File{ID: "f" + n, Name: n, ContentType: "image/png", Bytes: []byte(n)})
				}
				return nil
			}}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: fileAnalyzer{}, Pages: func(pt PageTree) error {
					p, err := pt.Page("p")
					if err == nil {
						p.SetBody(fmt.Sprint("edit ", i, " file:image-7.png"))
					}
					return err
				}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A database written before 0026_file_bytes (each blob's bytes in its
// file_blobs row) is migrated: every file lists and serves the same bytes.
func TestFileBytesMigration(t *testing.T) {
	ctx := context.Background()
	target := testTarget(t)
	db, err := Open(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	boot, err := db.CreateOrganizationWithAdmin(ctx, "o", "a@b.c", "a", "h")
	if err != nil {
		t.Fatal(err)
	}
	sp := Space{OrganizationID: boot.Organization.ID, Title: "s", Visibility: "private", EditMode: "live"}
	if err := db.CreateSpace(ctx, &sp); err != nil {
		t.Fatal(err)
	}
	contents := map[string][]byte{"small.txt": []byte("small"), "large.bin": make([]byte, 300<<10)}
	contents["large.bin"][12345] = 7
	rev, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp.ID, Activate: true, Analyzer: testAnalyzer{}, Edit: func(tr *Tree) error {
		for name, b := range contents {
			tr.Files = append(tr.Files, &File{ID: "f-" + name, Name: name, ContentType: "application/octet-stream", Bytes: b})
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	blobType := "BLOB"
	if TestOnPostgres() {
		blobType = "BYTEA"
	}
	db = migrateAgain(t, db, target, "0026_file_bytes.sql", func(tx *Tx) error {
		return execAll(tx,
			`ALTER TABLE file_blobs ADD COLUMN bytes `+blobType,
			`UPDATE file_blobs SET bytes = (SELECT y.bytes FROM file_bytes y WHERE y.hash = file_blobs.hash)`,
			`DROP TABLE file_bytes`)
	})
	files, err := db.RevisionFiles(ctx, rev)
	if err != nil || len(files) != 2 {
		t.Fatalf("files after the migration: %v %v", files, err)
	}
	for _, f := range files {
		b, err := db.FileBytes(ctx, f.Blob)
		if err != nil || !slices.Equal(b, contents[f.Name]) || f.Size != int64(len(contents[f.Name])) {
			t.Fatalf("%s after the migration: %d bytes (size %d), %v", f.Name, len(b), f.Size, err)
		}
	}
	if n := count(t, db, `SELECT COUNT(*) FROM file_bytes`); n != 2 {
		t.Fatalf("file_bytes rows: %d, want 2", n)
	}
}

// fileAnalyzer resolves the "file:NAME" words of a body as the graph's
// analyzer resolves a relative link to a file: through Tree.LookupFile when
// the tree did not read its file list, else the last file of that name in
// the list; unresolved, the name is looked up when read.
type fileAnalyzer struct{ testAnalyzer }

func (fileAnalyzer) Links(p *TreePage, t *Tree) []PageLink {
	var out []PageLink
	for _, w := range strings.Fields(p.Markdown) {
		name, ok := strings.CutPrefix(w, "file:")
		if !ok {
			continue
		}
		l := PageLink{Kind: "file", Dest: name, Lookup: name}
		if t.LookupFile != nil {
			if id, ok := t.LookupFile(name); ok {
				l.Target, l.Lookup = id, ""
			}
		} else {
			for _, f := range t.Files {
				if f.Name == name {
					l.Target, l.Lookup = f.ID, ""
				}
			}
		}
		out = append(out, l)
	}
	return out
}

// TestPartialEditFindsFilesAsTheWholeTree: a page edit through PageTree
// does not read the space's file list, yet resolves its links to files
// (two files of one name among them) exactly as the same edit through the
// whole tree; an edit that asks for the list (a cover image) gets all of it;
// neither writes a row per file. An upload through PageTree reads no page
// and stores the same file list as through the whole tree.
func TestPartialEditFindsFilesAsTheWholeTree(t *testing.T) {
	ctx := context.Background()
	db, spaces := twoSpaces(t)
	for _, sp := range spaces {
		if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp, Activate: true, Analyzer: fileAnalyzer{}, Edit: func(tr *Tree) error {
			p := &TreePage{ContentPage: ContentPage{ID: "root", Type: "document", Title: "root", Slug: "root"}}
			p.SetBody("root")
			tr.Pages = append(tr.Pages, p)
			for _, f := range [][2]string{{"f1", "a.png"}, {"f2", "dup.png"}, {"f9", "dup.png"}, {"f5", "z.txt"}} {
				tr.Files = append(tr.Files, &File{ID: f[0], Name: f[1], ContentType: "image/png", Bytes: []byte(f[0])})
			}
			return nil
		}}); err != nil {
			t.Fatal(err)
		}
	}
	rows := count(t, db, `SELECT COUNT(*) FROM revision_files`)
	newPage := func(id, body string) *TreePage {
		p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
		p.SetBody(body)
		return p
	}
	var listed [2]int
	edits := []struct {
		name string
		edit func(i int) func(pt PageTree) error
	}{
		{"insert", func(int) func(pt PageTree) error {
			return func(pt PageTree) error {
				return pt.Insert(newPage("p1", "file:dup.png file:a.png file:missing.png"), "", nil)
			}
		}},
		{"body", func(int) func(pt PageTree) error {
			return func(pt PageTree) error {
				p, err := pt.Page("root")
				if err == nil {
					p.SetBody("file:z.txt file:dup.png")
				}
				return err
			}
		}},
		{"move", func(int) func(pt PageTree) error {
			return func(pt PageTree) error { return pt.Move("p1", "root", nil) }
		}},
		{"cover", func(i int) func(pt PageTree) error {
			return func(pt PageTree) error {
				listed[i] = len(pt.Files())
				return pt.Insert(newPage("p2", "file:dup.png"), "root", nil)
			}
		}},
		// An upload (a third file named dup.png, the last by id), then a
		// link to that name.
		{"upload", func(int) func(pt PageTree) error {
			return func(pt PageTree) error {
				return pt.AddFile(&File{ID: "fz", Name: "dup.png", ContentType: "image/png", Bytes: []byte("fz")})
			}
		}},
		{"after the upload", func(int) func(pt PageTree) error {
			return func(pt PageTree) error { return pt.Insert(newPage("p3", "file:dup.png"), "", nil) }
		}},
	}
	var reads PageReads
	for _, e := range edits {
		var revs [2]string
		for i, sp := range spaces {
			before, trees := reads.Statements, reads.WholeTrees
			rev, err := db.CreateRevision(CountingPageReads(ctx, &reads), RevisionChange{SpaceID: sp, Activate: true, Analyzer: fileAnalyzer{}, Pages: e.edit(i), WholeTree: i == 1})
			if err != nil {
				t.Fatalf("%s: %v", e.name, err)
			}
			revs[i] = rev
			if loaded := reads.WholeTrees - trees; loaded != i {
				t.Fatalf("%s: %d whole trees loaded in space %d, want %d", e.name, loaded, i, i)
			}
			if e.name == "upload" && i == 0 && reads.Statements != before {
				t.Fatalf("the upload read %d page statements, want none", reads.Statements-before)
			}
		}
		if a, w := revisionShape(t, db, spaces[0], revs[0])+filesShape(t, db, revs[0]), revisionShape(t, db, spaces[1], revs[1])+filesShape(t, db, revs[1]); a != w {
			t.Fatalf("%s:\npartial:\n%s\nwhole tree:\n%s", e.name, a, w)
		}
		last := "f9"
		if e.name == "after the upload" {
			last = "fz"
		}
		if !strings.Contains(revisionShape(t, db, spaces[0], revs[0]), "link file "+last+" dup.png ok") {
			t.Fatalf("%s: dup.png does not resolve to the last file of that name:\n%s", e.name, revisionShape(t, db, spaces[0], revs[0]))
		}
	}
	// A file by name is one seek of revision_files_name, not a walk of the
	// revision's files by id for the largest.
	lookups := 0
	for _, q := range reads.queries {
		if !strings.Contains(q.sql, "FROM revision_files") {
			continue
		}
		lookups++
		if db.Engine() != "sqlite" {
			continue
		}
		plan := queryPlan(t, db, q.sql, q.args)
		if !strings.Contains(strings.Join(plan, "; "), "revision_files_name (revision_id=? AND name=?)") {
			t.Fatalf("a file by name: %s\nplan: %s", q.sql, strings.Join(plan, "; "))
		}
	}
	if lookups == 0 {
		t.Fatal("the partial edits looked no file up by name")
	}
	if listed != [2]int{4, 4} {
		t.Fatalf("files an edit asked for: %v, want 4 each", listed)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM revision_files`); n != rows+2*5 {
		t.Fatalf("revision_files rows %d after the page edits and an upload, want %d (the upload's five in each space)", n, rows+2*5)
	}
}

// filesShape is a revision's file list: id, name, blob.
func filesShape(t *testing.T, db *DB, rev string) string {
	t.Helper()
	files, err := db.RevisionFiles(context.Background(), rev)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "file %s %s %s %d\n", f.ID, f.Name, f.Blob, f.Size)
	}
	return b.String()
}
