package storage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDialectFor: a path is SQLite, a postgres:// or postgresql:// URL is
// PostgreSQL, and any other URL is refused with a message naming the
// supported forms, before anything is created.
func TestDialectFor(t *testing.T) {
	for target, want := range map[string]string{
		"./data/docsapi.db":                     "sqlite",
		"/var/lib/docsapi/docsapi.db":           "sqlite",
		"docsapi.db":                            "sqlite",
		`C:\data\docsapi.db`:                    "sqlite",
		"./odd:name.db":                         "sqlite",
		"postgres://u:p@127.0.0.1:5432/docsapi": "postgres",
		"postgresql://localhost/docsapi":        "postgres",
		"POSTGRES://localhost/docsapi":          "postgres",
	} {
		d, err := dialectFor(target)
		if err != nil || d.name() != want {
			t.Errorf("dialectFor(%q) = %v, %v; want %s", target, d, err, want)
		}
	}
	for _, target := range []string{"mysql://root@localhost/docsapi", "postgres:docsapi", "file:docsapi.db", "sqlite:///x.db", "http://x", ""} {
		_, err := dialectFor(target)
		if err == nil {
			t.Errorf("dialectFor(%q) accepted", target)
			continue
		}
		if target != "" && !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("dialectFor(%q): %v does not name the supported forms", target, err)
		}
	}
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	if _, err := Open("mysql://root@localhost/docsapi", Options{}); err == nil {
		t.Fatal("Open accepted a mysql:// URL")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("Open of a refused URL created %s", filepath.Join(dir, entries[0].Name()))
	}
	if got := Redact("postgres://docsapi:s3cret@db:5432/docsapi"); strings.Contains(got, "s3cret") {
		t.Fatalf("Redact kept the password: %s", got)
	}
}
