package gitsync_test

import (
	"context"
	"fmt"
	"testing"

	"docsapi/gitsync"
	"docsapi/gitsync/gittest"
)

// BenchmarkRead fetches and reads a repository of n Markdown files through
// git http-backend on loopback: the cost should grow with the files (the
// ratio of files=2000 to files=200 near 10), not faster.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			srv := gittest.Start(b, "", "")
			url := srv.Bare("docs")
			files := map[string]string{}
			for i := range n {
				files[fmt.Sprintf("part-%02d/page-%d.md", i%20, i)] = fmt.Sprintf("# Page %d\n\nSome text for page %d.\n", i, i)
			}
			srv.Commit("docs", "docs", files)
			rem, _, err := gitsync.ParseRemote(url, "main")
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				snap, err := gitsync.Read(context.Background(), local(), rem, "", b.TempDir(), gitsync.Limits{})
				if err != nil || len(snap.Files) != n {
					b.Fatal(err)
				}
			}
		})
	}
}
