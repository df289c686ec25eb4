package storage_test

import (
	"context"
	"testing"

	"docsapi/bench/seed"
	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// seeded opens a database holding one organization with members members
// (spread over 50 teams). Only benchmarks call it: seeding costs ~0.5 s.
func seeded(b *testing.B, members int) (*storage.DB, *seed.Env) {
	b.Helper()
	path := storagetest.Target(b)
	lastPath = path
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	e, err := seed.Bootstrap(ctx, db, "Bench")
	if err != nil {
		b.Fatal(err)
	}
	if err := seed.Members(ctx, e, members); err != nil {
		b.Fatal(err)
	}
	if err := seed.Teams(ctx, e, 50); err != nil {
		b.Fatal(err)
	}
	return db, e
}

// BenchmarkListMembers is the storage side of GET members?limit=100 over an
// organization of 10,000 members: the page, its team counts and the total.
func BenchmarkListMembers(b *testing.B) {
	db, e := seeded(b, 10_000)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := db.ListMembers(ctx, e.Org, storage.MemberFilter{}, storage.PageQuery{Limit: 100})
		if err != nil || len(p.Items) != 100 || p.Count != 10_001 {
			b.Fatalf("page of %d, count %d: %v", len(p.Items), p.Count, err)
		}
	}
}

// BenchmarkOrganizationFor is the read behind GET /v1/orgs/{id}.
func BenchmarkOrganizationFor(b *testing.B) {
	db, e := seeded(b, 100)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, m, err := db.OrganizationFor(ctx, e.Org, e.Admin); err != nil || m == nil {
			b.Fatal(err)
		}
	}
}

var lastPath string

func dbPathOf(b *testing.B) string { return lastPath }

// BenchmarkTokenChanges is the SQL every authenticated request now pays:
// one prepared read of the token counter (validating the cached lookup).
func BenchmarkTokenChanges(b *testing.B) {
	db, err := storage.Open(storagetest.Target(b), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := db.TokenChanges(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
