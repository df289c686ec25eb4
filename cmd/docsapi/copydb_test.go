package main

import (
	"database/sql"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"docsapi/apitest"
	"docsapi/server"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestCopyDB copies a populated database (spaces with pages and their
// search index, a change request, a comment, teams, an OpenAPI spec, a
// collection) into a new file with `docsapi admin copy-db`, then serves the
// copy: the same token works and every answer checked is the same as the
// source's, search included. A second copy into the now populated target is
// refused and changes nothing.
func TestCopyDB(t *testing.T) {
	env := apitest.New(t)
	tok := env.Admin.Token
	org := "/v1/orgs/" + env.Org
	col := env.Must(201, "POST", org+"/collections", tok, map[string]any{"title": "Guides"}).JSON()["id"].(string)
	space := env.Must(201, "POST", org+"/spaces", tok, map[string]any{"title": "Docs", "parent": col}).JSON()["id"].(string)
	env.Must(201, "POST", "/v1/spaces/"+space+"/content/template", tok, map[string]any{"id": "getting-started"})
	env.Must(201, "POST", "/v1/spaces/"+space+"/change-requests", tok, map[string]any{"subject": "Review"})
	env.Must(200, "POST", "/v1/spaces/"+space+"/comments", tok, map[string]any{"body": map[string]any{"markdown": "Looks good"}})
	env.Must(201, "PUT", org+"/teams", tok, map[string]any{"title": "Writers"})
	env.Must(201, "POST", org+"/openapi", tok, map[string]any{"slug": "pets", "source": map[string]any{"text": "openapi: 3.0.0\ninfo: {title: Pets, version: '1'}\npaths: {}\n"}})
	reads := []string{
		"/v1/spaces/" + space,
		"/v1/spaces/" + space + "/content",
		"/v1/spaces/" + space + "/search?query=install",
		org + "/spaces",
		org + "/teams",
		org + "/collections",
		"/v1/spaces/" + space + "/change-requests",
		"/v1/spaces/" + space + "/comments",
		org + "/openapi/pets",
	}
	want := map[string]string{}
	for _, p := range reads {
		want[p] = string(env.Must(200, "GET", p, tok, nil).Body)
	}
	if !strings.Contains(want[reads[2]], `"count":`) || strings.Contains(want[reads[2]], `"count":0`) {
		t.Fatalf("the source's search finds nothing: %s", want[reads[2]])
	}

	// Two copies in a row: the source into a SQLite file, that file into a
	// new database of the suite's engine. On PostgreSQL (DOCSAPI_TEST_DB)
	// that is both directions between the engines, search index included.
	file := filepath.Join(t.TempDir(), "copy.db")
	target := storagetest.Target(t)
	var copyEnv *apitest.Env
	for _, step := range [][2]string{{env.DBPath, file}, {file, target}} {
		out := captureStdout(t, func() error { return admin([]string{"copy-db", "--from", step[0], "--to", step[1]}) })
		for _, table := range []string{`"table":"spaces","source":1,"target":1`, `"table":"search_postings"`, `"table":"change_requests","source":1,"target":1`} {
			if !strings.Contains(out, table) {
				t.Errorf("copy-db output lacks %s: %s", table, out)
			}
		}
		db, err := storage.Open(step[1], storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		srv := server.New(server.Config{PublicURL: env.Server.Config.PublicURL}, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
		copyEnv = &apitest.Env{T: t, Server: srv, DB: db, HTTP: httptest.NewServer(srv), Clock: env.Clock}
		defer copyEnv.HTTP.Close()
		for _, p := range reads {
			if got := string(copyEnv.Must(200, "GET", p, tok, nil).Body); got != want[p] {
				t.Errorf("GET %s on the copy %s:\n%s\nsource:\n%s", p, step[1], got, want[p])
			}
		}
	}
	// The copy is a working installation: writes go on from where the
	// source was (counters, numbering).
	if n := copyEnv.Must(201, "POST", "/v1/spaces/"+space+"/change-requests", tok, map[string]any{"subject": "Next"}).JSON()["number"]; n != float64(2) {
		t.Errorf("next change request number on the copy: %v", n)
	}

	// A populated target is refused, and left as it was.
	before := string(copyEnv.Must(200, "GET", org+"/teams", tok, nil).Body)
	err := admin([]string{"copy-db", "--from", env.DBPath, "--to", target})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("copy into a populated target: %v", err)
	}
	if after := string(copyEnv.Must(200, "GET", org+"/teams", tok, nil).Body); after != before {
		t.Fatal("the refused copy changed the target")
	}
	if err := admin([]string{"copy-db", "--from", filepath.Join(t.TempDir(), "missing.db"), "--to", filepath.Join(t.TempDir(), "x.db")}); err == nil {
		t.Error("a missing source was not refused")
	}
	if err := admin([]string{"copy-db", "--from", target, "--to", target}); err == nil {
		t.Error("a copy onto itself was not refused")
	}
}

// A copy that fails half-way leaves nothing in the target: the target's
// transaction is rolled back as a whole, and a later copy starts over. The
// failure is a table only the source has (sorted last, so every other
// table was copied before it failed).
func TestCopyDBRollsBackOnFailure(t *testing.T) {
	storagetest.SQLiteOnly(t, "adds a table to the source through a raw SQLite connection")
	env := apitest.New(t)
	env.Must(201, "PUT", "/v1/orgs/"+env.Org+"/teams", env.Admin.Token, map[string]any{"title": "Writers"})
	raw, err := sql.Open("sqlite", "file:"+env.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TABLE zz_source_only (x INTEGER); INSERT INTO zz_source_only (x) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "target.db")
	err = admin([]string{"copy-db", "--from", env.DBPath, "--to", target})
	if err == nil || !strings.Contains(err.Error(), "zz_source_only") {
		t.Fatalf("copy with a table the target lacks: %v", err)
	}
	if n := countRows(t, target, "teams") + countRows(t, target, "users") + countRows(t, target, "search_postings"); n != 0 {
		t.Fatalf("the failed copy left %d rows in the target", n)
	}
	if _, err := raw.Exec(`DROP TABLE zz_source_only`); err != nil {
		t.Fatal(err)
	}
	captureStdout(t, func() error { return admin([]string{"copy-db", "--from", env.DBPath, "--to", target}) })
	if n := countRows(t, target, "teams"); n != 1 {
		t.Fatalf("teams in the target after the second copy: %d", n)
	}
}

// countRows counts the rows of table in the SQLite file.
func countRows(t *testing.T, file, table string) int {
	t.Helper()
	c, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int
	if err := c.QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// captureStdout runs fn with os.Stdout going to a pipe and returns what it
// printed.
func captureStdout(t *testing.T, fn func() error) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	ferr := fn()
	os.Stdout = old
	w.Close()
	out := <-done
	if ferr != nil {
		t.Fatal(ferr)
	}
	return out
}
