package graph_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCodeIsFresh regenerates the GraphQL code in a copy of the
// module and fails when the committed generated files differ: run
// `go tool gqlgen generate` (make generate) and commit the result.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates the GraphQL code; skipped with -short")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (rel == ".git" || d.Name() == "node_modules" || rel == "data") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "gqlgen", "generate")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gqlgen generate: %v\n%s", err, out)
	}
	var stale []string
	filepath.WalkDir(filepath.Join(tmp, "graph"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(tmp, p)
		want, _ := os.ReadFile(p)
		have, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil || !bytes.Equal(want, have) {
			stale = append(stale, rel)
		}
		return nil
	})
	if len(stale) > 0 {
		t.Fatalf("generated GraphQL code is stale (run `go tool gqlgen generate` and commit): %v", stale)
	}
}
