package storage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkPurgeSpace measures the trash sweep's removal of one space of
// 10,000 and of 100,000 imported pages (with their links, files and
// search index) while one client
// creates spaces one after the other: purge-ms is the whole removal,
// write-max-ms its longest write up to its COMMIT (a COMMIT may run a WAL
// checkpoint), stmts-max-ms the longest without its COMMIT, p50-ms and
// p99-ms the creates' latencies during it, idle-p99-ms the same creates
// alone. batch=0 is the purge in one transaction, for comparison;
// "duplicated" has a duplicate of the space, which takes in what it reads
// of it first.
//
//	go test -run '^$' -bench PurgeSpace -benchtime 1x ./storage
func BenchmarkPurgeSpace(b *testing.B) {
	for _, c := range []struct {
		pages, batch int
		dup          bool
	}{{10_000, purgeBatchRows, false}, {10_000, 0, false}, {100_000, purgeBatchRows, false}, {100_000, 0, false}, {100_000, purgeBatchRows, true}, {100_000, 0, true}} {
		name := fmt.Sprintf("pages=%d/batch=%d", c.pages, c.batch)
		if c.dup {
			name += "/duplicated"
		}
		b.Run(name, func(b *testing.B) {
			setPurgeBatchRows(b, c.batch)
			pages := c.pages
			ctx := context.Background()
			db, sp := importDB(b, 500)
			var idle []time.Duration
			for range 200 {
				idle = append(idle, timedWrite(b, db, sp.OrganizationID))
			}
			var purge, writeMax, stmtsMax time.Duration
			var during []time.Duration
			for i := range b.N {
				target := Space{OrganizationID: sp.OrganizationID, Title: fmt.Sprintf("purged %d", i), Visibility: "private", EditMode: "live"}
				if err := db.CreateSpace(ctx, &target); err != nil {
					b.Fatal(err)
				}
				if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: target.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(pages)}); err != nil {
					b.Fatal(err)
				}
				if c.dup {
					if _, err := db.DuplicateSpace(ctx, target.ID, "copy"); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := db.TrashSpace(ctx, target.ID); err != nil {
					b.Fatal(err)
				}
				var mu sync.Mutex
				db.ObserveWrites(func(_, hold, commit time.Duration, _ error) {
					mu.Lock()
					writeMax = max(writeMax, hold)
					stmtsMax = max(stmtsMax, hold-commit)
					mu.Unlock()
				})
				var n int
				var err error
				during = append(during, writesDuring(b, db, sp.OrganizationID, func() {
					start := time.Now()
					n, err = db.PurgeSpaces(ctx, db.Now().Add(time.Hour))
					purge += time.Since(start)
				})...)
				db.ObserveWrites(nil)
				if err != nil || n != 1 {
					b.Fatalf("purged %d, %v", n, err)
				}
			}
			b.ReportMetric(float64(purge.Microseconds())/1000/float64(b.N), "purge-ms")
			b.ReportMetric(float64(writeMax.Microseconds())/1000, "write-max-ms")
			b.ReportMetric(float64(stmtsMax.Microseconds())/1000, "stmts-max-ms")
			b.ReportMetric(quantileMs(idle, 0.99), "idle-p99-ms")
			b.ReportMetric(quantileMs(during, 0.50), "p50-ms")
			b.ReportMetric(quantileMs(during, 0.99), "p99-ms")
		})
	}
}
