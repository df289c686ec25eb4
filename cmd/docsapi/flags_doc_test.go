package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFlagIsDocumented: every flag `docsapi serve -h` lists has its row
// in docs/configuration.md, with its environment twin, so that page stays
// the one place a user reads them all.
func TestEveryFlagIsDocumented(t *testing.T) {
	page, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(serverBinary(t), "serve", "-h").CombinedOutput() // -h exits non-zero
	flags := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1)
	if len(flags) < 20 {
		t.Fatalf("serve -h listed %d flags:\n%s", len(flags), out)
	}
	for _, f := range flags {
		row := "| `--" + f[1] + "` | `" + envName(f[1]) + "` |"
		if !strings.Contains(string(page), row) {
			t.Errorf("docs/configuration.md has no row starting %s", row)
		}
	}
}
