package storage_test

import (
	"context"
	"testing"

	"docsapi/bench/seed"
	"docsapi/storage"
)

// BenchmarkSpaceRead is the storage side of GET /v1/spaces/{id} and of a
// read of 100 spaces by id (a list page's items) in an organization of 10,000 spaces, half of them set
// up for Git Sync: every space row carries its Git Sync state (spaceCols).
// "synced" reads a space with a state, "plain" one without.
func BenchmarkSpaceRead(b *testing.B) {
	db, e := seeded(b, 100)
	ctx := context.Background()
	if err := seed.Spaces(ctx, e, 10_000); err != nil {
		b.Fatal(err)
	}
	page, err := db.ListSpaces(ctx, storage.SpaceFilter{OrganizationID: e.Org}, nil, storage.PageQuery{Limit: 1000})
	if err != nil || len(page.Items) < 1000 {
		b.Fatalf("%d spaces: %v", len(page.Items), err)
	}
	for i, sp := range page.Items {
		if i%2 == 1 {
			continue
		}
		op := storage.GitOperation{OrganizationID: e.Org, SpaceID: sp.ID, UserID: e.Admin, Kind: "import", URL: "https://git.example.com/d.git",
			Ref: "refs/heads/main", Params: "{}"}
		if err := db.EnqueueGitOperation(ctx, &op, "github", "https://git.example.com/d"); err != nil {
			b.Fatal(err)
		}
	}
	synced, plain := page.Items[0].ID, page.Items[1].ID
	for _, bc := range []struct {
		name, id string
		git      bool
	}{{"synced", synced, true}, {"plain", plain, false}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				sp, err := db.Space(ctx, bc.id)
				if err != nil || (sp.GitSync != nil) != bc.git {
					b.Fatalf("%+v %v", sp.GitSync, err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = page.Items[i].ID
	}
	b.Run("byIDs100", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			m, err := db.SpacesByIDs(ctx, ids)
			if err != nil || len(m) != 100 || m[ids[0]].GitSync == nil || m[ids[1]].GitSync != nil {
				b.Fatalf("%d spaces: %v", len(m), err)
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}
