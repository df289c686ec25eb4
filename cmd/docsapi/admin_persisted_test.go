package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"docsapi/server"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// captureAdmin runs an admin command and returns its JSON lines.
func captureAdmin(t *testing.T, args ...string) ([]map[string]any, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	runErr := admin(args)
	os.Stdout = old
	w.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(string(<-done)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		lines = append(lines, m)
	}
	return lines, runErr
}

// TestAdminPersistedQueries: add registers a .graphql document and a
// manifest's operations (printing their hashes), list shows them, remove
// takes them away all or none, and bad documents are refused before
// anything is written.
func TestAdminPersistedQueries(t *testing.T) {
	dir := t.TempDir()
	target := storagetest.Target(t)
	if !storage.IsPostgres(target) {
		target = filepath.Join(dir, "docsapi.db")
	}
	db, err := storage.Open(target, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	page := "query PageView($s: ID!) { space(id: $s) { id title } }\n"
	viewer := "{ viewer { id } }"
	manifest, _ := json.Marshal(map[string]any{"format": "apollo-persisted-query-manifest", "version": 1, "operations": []map[string]any{
		{"id": server.PersistedQueryHash(viewer), "name": "Viewer", "type": "query", "body": viewer},
	}})
	lines, err := captureAdmin(t, "persisted-queries", "add", "--db", target, write("page.graphql", page), write("ops.json", string(manifest)))
	if err != nil || len(lines) != 2 || lines[0]["id"] != server.PersistedQueryHash(page) || lines[0]["name"] != "PageView" || lines[1]["name"] != "Viewer" {
		t.Fatalf("add: %v %v", lines, err)
	}
	if body, err := db.PersistedQueryBody(context.Background(), server.PersistedQueryHash(page)); err != nil || body != page {
		t.Fatalf("registered body: %q %v", body, err)
	}
	for name, text := range map[string]string{
		"syntax.graphql":    "{ viewer { id }",
		"fragment.graphql":  "fragment F on User { id }",
		"deep.graphql":      strings.Repeat("{ a ", 100) + strings.Repeat("}", 100),
		"empty.graphql":     "  \n",
		"wrong-id.json":     `{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"00","name":"X","type":"query","body":"{ viewer { id } }"}]}`,
		"not-manifest.json": `{"operations":[]}`,
	} {
		// Each bad file beside a good one: nothing of the call is registered.
		if _, err := captureAdmin(t, "persisted-queries", "add", "--db", target, write("ok.graphql", "{ organizations { items { id } } }"), write(name, text)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
	lines, err = captureAdmin(t, "persisted-queries", "list", "--db", target)
	if err != nil || len(lines) != 2 || lines[0]["body"] == nil || lines[0]["createdAt"] == nil {
		t.Fatalf("list: %v %v", lines, err)
	}
	if _, err := captureAdmin(t, "persisted-queries", "remove", "--db", target, server.PersistedQueryHash(page), "feed"); err == nil {
		t.Fatal("remove with an unknown hash succeeded")
	}
	if lines, _ := captureAdmin(t, "persisted-queries", "list", "--db", target); len(lines) != 2 {
		t.Fatalf("after a refused remove: %v", lines)
	}
	lines, err = captureAdmin(t, "persisted-queries", "remove", "--db", target, server.PersistedQueryHash(page))
	if err != nil || len(lines) != 1 || lines[0]["removed"] != float64(1) {
		t.Fatalf("remove: %v %v", lines, err)
	}
	if lines, _ := captureAdmin(t, "persisted-queries", "list", "--db", target); len(lines) != 1 || lines[0]["name"] != "Viewer" {
		t.Fatalf("after remove: %v", lines)
	}
	for _, args := range [][]string{{"persisted-queries"}, {"persisted-queries", "drop"}, {"persisted-queries", "add", "--db", target}, {"persisted-queries", "remove", "--db", target}} {
		if _, err := captureAdmin(t, args...); err == nil {
			t.Errorf("%v succeeded", args)
		}
	}
}
