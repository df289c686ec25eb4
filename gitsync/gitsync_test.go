package gitsync_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"docsapi/fetch"
	"docsapi/gitsync"
	"docsapi/gitsync/gittest"
)

// local is the guard a deployment with --allow-private-fetch uses.
func local() *fetch.Fetcher {
	return fetch.New(fetch.Options{AllowPrivate: true, MaxBytes: 1 << 30, Timeout: time.Minute})
}

func remote(t testing.TB, url, ref string) gitsync.Remote {
	t.Helper()
	r, field, err := gitsync.ParseRemote(url, ref)
	if err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	return r
}

func md(name string) bool {
	return strings.HasSuffix(name, ".md") || strings.HasPrefix(name, ".gitbook/assets/")
}

func code(err error) string {
	var ge *gitsync.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return ""
}

func TestReadBranchThroughHTTPBackend(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	oid := srv.Commit("docs", "first", map[string]string{"README.md": "# Hello\n", "guide/setup.md": "# Setup\n", "docs/x.md": "x"})
	snap, err := gitsync.Read(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Commit != oid || strings.TrimSpace(snap.Message) != "first" {
		t.Errorf("commit %s %q, want %s first", snap.Commit, snap.Message, oid)
	}
	if string(snap.Files["README.md"]) != "# Hello\n" || string(snap.Files["guide/setup.md"]) != "# Setup\n" || len(snap.Files) != 3 {
		t.Errorf("files %v", snap.Files)
	}
	sub, err := gitsync.Read(context.Background(), local(), remote(t, url, "refs/heads/main"), "guide", t.TempDir(), gitsync.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.Files) != 1 || string(sub.Files["setup.md"]) != "# Setup\n" {
		t.Errorf("project directory guide: %v", sub.Files)
	}
	_, err = gitsync.Read(context.Background(), local(), remote(t, url, "nope"), "", t.TempDir(), gitsync.Limits{})
	if code(err) != "not-found" {
		t.Errorf("missing ref: %v", err)
	}
}

func TestPrivateAddressRefusedWithoutTheFlag(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", map[string]string{"README.md": "x"})
	before := srv.Requests.Load()
	_, err := gitsync.Read(context.Background(), fetch.New(fetch.Options{}), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{})
	if err == nil || !strings.Contains(err.Error(), "may not be fetched") {
		t.Fatalf("loopback without AllowPrivate: %v", err)
	}
	if n := srv.Requests.Load() - before; n != 0 {
		t.Errorf("the server got %d requests", n)
	}
}

func TestCredentialsCheckedByTheServer(t *testing.T) {
	srv := gittest.Start(t, "alice", "s3cret-token")
	url := srv.Bare("docs")
	srv.Commit("docs", "first", map[string]string{"README.md": "x"})
	withCreds := strings.Replace(url, "http://", "http://alice:s3cret-token@", 1)
	if _, err := gitsync.Read(context.Background(), local(), remote(t, withCreds, "main"), "", t.TempDir(), gitsync.Limits{}); err != nil {
		t.Fatalf("right credentials: %v", err)
	}
	wrong := strings.Replace(url, "http://", "http://alice:wrong-one@", 1)
	_, err := gitsync.Read(context.Background(), local(), remote(t, wrong, "main"), "", t.TempDir(), gitsync.Limits{})
	if code(err) != "auth" || strings.Contains(err.Error(), "wrong-one") {
		t.Errorf("wrong credentials: %v", err)
	}
	_, err = gitsync.Read(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{})
	if code(err) != "auth" {
		t.Errorf("no credentials: %v", err)
	}
	// A push is checked too.
	_, err = gitsync.Write(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), map[string][]byte{"a.md": []byte("a")}, md,
		gitsync.Commit{Name: "A", Email: "a@example.com", Message: "m", When: time.Now()}, "", false, gitsync.Limits{})
	if code(err) != "auth" {
		t.Errorf("push without credentials: %v", err)
	}
	p, err := gitsync.Write(context.Background(), local(), remote(t, withCreds, "main"), "", t.TempDir(), map[string][]byte{"a.md": []byte("a")}, md,
		gitsync.Commit{Name: "A", Email: "a@example.com", Message: "m", When: time.Now()}, "", false, gitsync.Limits{})
	if err != nil || !p.Changed {
		t.Fatalf("push with credentials: %v %+v", err, p)
	}
}

func TestWriteCommitsOnlyWhenChangedAndKeepsOtherFiles(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	rem := remote(t, url, "main")
	author := gitsync.Commit{Name: "Ada Lovelace", Email: "ada@example.com", Message: "docsapi: revision r1", When: time.Unix(1700000000, 0)}
	// An empty repository: the first export creates the branch.
	p1, err := gitsync.Write(context.Background(), local(), rem, "", t.TempDir(), map[string][]byte{"README.md": []byte("# One\n"), ".gitbook/assets/a.png": {1, 2, 3}}, md, author, "", false, gitsync.Limits{})
	if err != nil || !p1.Changed || p1.Parent != "" {
		t.Fatalf("first export: %v %+v", err, p1)
	}
	if got := srv.Run("docs", "log", "-1", "--format=%an <%ae>|%s", "main"); got != "Ada Lovelace <ada@example.com>|docsapi: revision r1" {
		t.Errorf("commit %q", got)
	}
	// Someone adds a CI file and changes nothing of the docs.
	tip := srv.Commit("docs", "ci", map[string]string{".github/ci.yml": "on: push\n"})
	// The same content again: nothing is pushed.
	p2, err := gitsync.Write(context.Background(), local(), rem, "", t.TempDir(), map[string][]byte{"README.md": []byte("# One\n"), ".gitbook/assets/a.png": {1, 2, 3}}, md, author, tip, false, gitsync.Limits{})
	if err != nil || p2.Changed || p2.Commit != tip {
		t.Fatalf("unchanged export: %v %+v", err, p2)
	}
	// A change: one commit on top, the CI file kept, the old page gone.
	author.Message = "docsapi: revision r2"
	p3, err := gitsync.Write(context.Background(), local(), rem, "", t.TempDir(), map[string][]byte{"README.md": []byte("# Two\n"), "guide.md": []byte("g")}, md, author, tip, false, gitsync.Limits{})
	if err != nil || !p3.Changed || p3.Parent != tip {
		t.Fatalf("incremental export: %v %+v", err, p3)
	}
	if got := srv.Run("docs", "rev-parse", "main^"); got != tip {
		t.Errorf("parent %s, want %s", got, tip)
	}
	files := srv.Run("docs", "ls-tree", "-r", "--name-only", "main")
	if files != ".github/ci.yml\nREADME.md\nguide.md" {
		t.Errorf("tree:\n%s", files)
	}
	if srv.Show("docs", "main", "README.md") != "# Two" {
		t.Errorf("README not updated")
	}
}

func TestWriteRefusesAMovedRefUnlessForce(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("docs")
	rem := remote(t, url, "main")
	synced := srv.Commit("docs", "first", map[string]string{"README.md": "# One\n"})
	moved := srv.Commit("docs", "someone else", map[string]string{"README.md": "# Theirs\n"})
	author := gitsync.Commit{Name: "A", Email: "a@example.com", Message: "export", When: time.Now()}
	files := map[string][]byte{"README.md": []byte("# Ours\n")}
	_, err := gitsync.Write(context.Background(), local(), rem, "", t.TempDir(), files, md, author, synced, false, gitsync.Limits{})
	if code(err) != "non-fast-forward" {
		t.Fatalf("moved ref without force: %v", err)
	}
	if got := srv.Run("docs", "rev-parse", "main"); got != moved {
		t.Errorf("the ref changed to %s", got)
	}
	p, err := gitsync.Write(context.Background(), local(), rem, "", t.TempDir(), files, md, author, synced, true, gitsync.Limits{})
	if err != nil || !p.Changed || p.Parent != moved {
		t.Fatalf("force: %v %+v", err, p)
	}
	if srv.Show("docs", "main", "README.md") != "# Ours" {
		t.Errorf("force did not write the space's content")
	}
}

func TestTenThousandFilesWithinLimitsAndRefusedClearlyOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-file repository")
	}
	srv := gittest.Start(t, "", "")
	url := srv.Bare("big")
	files := map[string]string{}
	for i := range 10000 {
		files[fmt.Sprintf("section-%02d/part-%02d/page-%d.md", i%50, i%7, i)] = fmt.Sprintf("# Page %d\n", i)
	}
	srv.Commit("big", "big", files)
	snap, err := gitsync.Read(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{})
	if err != nil || len(snap.Files) != 10000 {
		t.Fatalf("10,000 files with the default limits: %v", err)
	}
	_, err = gitsync.Read(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{MaxFiles: 5000})
	if code(err) != "too-large" || !strings.Contains(err.Error(), "more than 5000 files") {
		t.Errorf("over MaxFiles: %v", err)
	}
	_, err = gitsync.Read(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{MaxPackBytes: 20000})
	if code(err) != "too-large" || !strings.Contains(err.Error(), "more than 20000 bytes") {
		t.Errorf("over MaxPackBytes: %v", err)
	}
}

func TestDeepAndLargeFilesRefusedClearly(t *testing.T) {
	srv := gittest.Start(t, "", "")
	url := srv.Bare("deep")
	srv.Commit("deep", "deep", map[string]string{strings.Repeat("d/", 40) + "x.md": "x", "big.bin": strings.Repeat("b", 5000)})
	_, err := gitsync.Read(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{})
	if code(err) != "too-large" || !strings.Contains(err.Error(), "folders deep") {
		t.Errorf("40 folders deep: %v", err)
	}
	_, err = gitsync.Read(context.Background(), local(), remote(t, url, "main"), "", t.TempDir(), gitsync.Limits{MaxDepth: 64, MaxFileBytes: 1000})
	if code(err) != "too-large" || !strings.Contains(err.Error(), "big.bin") {
		t.Errorf("file over MaxFileBytes: %v", err)
	}
}

func TestParseRemote(t *testing.T) {
	r, _, err := gitsync.ParseRemote("https://bob:tok%40en@example.com/o/r.git#frag", "main")
	if err != nil || r.URL != "https://example.com/o/r.git" || r.Username != "bob" || r.Password != "tok@en" || r.Ref != "refs/heads/main" {
		t.Errorf("%+v %v", r, err)
	}
	for _, c := range []struct{ url, ref, field string }{
		{"ftp://example.com/r", "main", "url"}, {"file:///etc", "main", "url"}, {"/local/path", "main", "url"},
		{"https://example.com/r", "refs/heads/../x", "ref"}, {"https://example.com/r", "refs/heads/a b", "ref"},
		{"https://example.com/r", "refs/pull/1", "ref"}, {"https://example.com/r", "", "ref"},
	} {
		if _, field, err := gitsync.ParseRemote(c.url, c.ref); err == nil || field != c.field {
			t.Errorf("%s %s: %v (field %q)", c.url, c.ref, err, field)
		}
	}
}

func FuzzParseRemote(f *testing.F) {
	f.Add("https://u:p@example.com/r.git", "refs/heads/main")
	f.Add("http://[::1]:80/x", "main")
	f.Fuzz(func(t *testing.T, url, ref string) {
		r, _, err := gitsync.ParseRemote(url, ref)
		if err != nil {
			return
		}
		if strings.Contains(r.URL, "@") && r.Username != "" && strings.Contains(r.URL, r.Username+"@") {
			t.Errorf("credentials kept in %q", r.URL)
		}
		if !strings.HasPrefix(string(r.Ref), "refs/") || strings.Contains(string(r.Ref), "..") {
			t.Errorf("ref %q", r.Ref)
		}
	})
}
