package storage_test

import (
	"context"
	"database/sql"
	"fmt"
	"syscall"
	"testing"
	"time"

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

// BenchmarkRecordedChange is the cost a recorded change adds to a durable
// write, in an organization whose audit log holds 50,000 entries and which
// has no webhook: "bare" commits an empty write, "audit-only" records a
// change no webhook can subscribe to (the audit sink alone), "audit+webhook"
// records a space.created (the audit sink and the webhook outbox's
// INSERT … SELECT, which finds no endpoint).
func BenchmarkRecordedChange(b *testing.B) {
	db, err := storage.Open(storagetest.Target(b), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	const org = "o-bench"
	change := func(action string, i int) storage.Change {
		return storage.Change{OrganizationID: org, Action: action, TargetType: "space", TargetID: fmt.Sprintf("s%08d", i),
			Fields: map[string]any{"title": "A space", "visibility": "private"}}
	}
	for batch := range 50 {
		rec := storage.Recording(ctx, func() []storage.Change {
			cs := make([]storage.Change, 1000)
			for i := range cs {
				cs[i] = change("space.updated", batch*1000+i)
			}
			return cs
		})
		if err := db.Write(rec, func(*storage.Tx) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct{ name, action string }{{"bare", ""}, {"audit-only", "thing.updated"}, {"audit+webhook", "space.created"}} {
		b.Run(bc.name, func(b *testing.B) {
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				i++
				wctx := ctx
				if bc.action != "" {
					wctx = storage.RecordingChange(ctx, change(bc.action, i))
				}
				if err := db.Write(wctx, func(*storage.Tx) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time is steadier than wall time on a shared machine
			// (the fsync's wait is not in it).
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCreateSpace is the storage side of POST /v1/orgs/{id}/spaces in
// an organization of 10,000 spaces (bench/seed), with the change the
// resolver records (audit entry, webhook outbox sink; no webhook): one
// client, so that the writer's hold per create (hold-µs/op, from
// ObserveWrites) and the CPU per create are not queueing figures. "top" at
// the top level, "in" inside a collection.
func BenchmarkCreateSpace(b *testing.B) {
	db, e := seeded(b, 100)
	ctx, cancel := context.WithCancel(context.Background()) // a request's context can end
	defer cancel()
	if err := seed.Spaces(ctx, e, 10_000); err != nil {
		b.Fatal(err)
	}
	collection, _ := e.Out["collection"].(string)
	path := lastPath
	var held, committed time.Duration
	db.ObserveWrites(func(_, hold, commit time.Duration, _ error) { held, committed = held+hold, committed+commit })
	for _, bc := range []struct {
		name   string
		parent *string
	}{{"top", nil}, {"in", &collection}} {
		b.Run(bc.name, func(b *testing.B) {
			create := func() {
				sp := storage.Space{OrganizationID: e.Org, ParentID: bc.parent, Title: "bench", Visibility: "private", EditMode: "live"}
				rec := storage.Recording(ctx, func() []storage.Change {
					return []storage.Change{{OrganizationID: e.Org, Action: "space.created", TargetType: "space", TargetID: sp.ID,
						Fields: map[string]any{"title": sp.Title, "parent": sp.ParentID, "editMode": sp.EditMode, "visibility": sp.Visibility}}}
				})
				if err := db.CreateSpace(rec, &sp); err != nil {
					b.Fatal(err)
				}
			}
			frames := walFramesPer(b, path, 200, create)
			held, committed = 0, 0
			cpu0 := cpuTime()
			for b.Loop() {
				create()
			}
			if frames > 0 {
				b.ReportMetric(frames, "frames/op")
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(held.Microseconds())/float64(b.N), "hold-µs/op")
			b.ReportMetric(float64(committed.Microseconds())/float64(b.N), "commit-µs/op")
		})
	}
}

// walFramesPer is the WAL frames (dirty b-tree pages) one call of write
// commits, over n calls on an emptied WAL (0 on PostgreSQL): what each
// durable commit writes before its fsync. n calls must stay under the
// checkpoint threshold.
func walFramesPer(b *testing.B, path string, n int, write func()) float64 {
	if storagetest.OnPostgres() {
		return 0
	}
	side, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer side.Close()
	var busy, frames, done int
	if err := side.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil || busy != 0 {
		b.Fatal("checkpoint: ", err, busy)
	}
	for range n {
		write()
	}
	if err := side.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		b.Fatal(err)
	}
	return float64(frames) / float64(n)
}
