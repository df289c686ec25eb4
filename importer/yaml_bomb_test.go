package importer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFrontMatterAliasBomb: YAML aliases expanding to a huge value (the
// "billion laughs") within the 16 KiB front matter bound are refused or
// read in bounded time, never expanded without end.
func TestFrontMatterAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for i := range 9 {
		name := string(rune('b' + i))
		b.WriteString(name + ": &" + name + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n")
		prev = name
	}
	b.WriteString("layout:\n  title: *" + prev + "\ndescription: x\n---\n# T\n")
	start := time.Now()
	_, _, err := splitFrontMatter(b.String())
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("front matter took %s (err %v)", d, err)
	}
	var bad *Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "aliases") {
		t.Fatalf("alias bomb: %v, want bad content naming aliases", err)
	}
	if _, err := Repository(context.Background(), map[string][]byte{"a.md": []byte(b.String())}, Limits{}); !errors.As(err, &bad) {
		t.Fatalf("repository with an alias bomb: %v", err)
	}
}
