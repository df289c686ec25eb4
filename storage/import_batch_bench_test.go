package storage

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkImportInBatches measures what is asked of imports: the
// time per imported page at 1,000 and at 10,000 pages (flat means O(N)),
// and the latency of other writes (creating a space, one at a time) while
// a 10,000-page import runs, against the same writes on an idle database,
// for a batch size of 100, 500 and 2,000 pages and for the one-transaction
// path ("batch=0"); and for an import that changes 10,000 pages the space
// has ("changed": every page a new body, some moved or removed, reviseEdit)
// and one of 10,000 pages into a change request ("cr"). ns/page is the import's time over its pages; p50-ms
// and p99-ms the other writes' latencies during the import, idle-p50-ms
// and idle-p99-ms the same writes alone; batch-max-ms the longest batch
// write (the sweep of the retired docs after a "changed" import included)
// and publish-ms the publishing write (each up to its COMMIT).
//
//	go test -run '^$' -bench ImportInBatches -benchtime 1x ./storage
func BenchmarkImportInBatches(b *testing.B) {
	for _, c := range []struct {
		pages, batch int
		mode         string
	}{
		{1_000, 500, "new"}, {10_000, 500, "new"}, {10_000, 100, "new"}, {10_000, 2_000, "new"}, {10_000, -1, "new"},
		{1_000, 500, "changed"}, {10_000, 500, "changed"}, {10_000, -1, "changed"}, {10_000, 500, "cr"}, {10_000, -1, "cr"},
	} {
		b.Run(fmt.Sprintf("pages=%d/batch=%d/%s", c.pages, max(c.batch, 0), c.mode), func(b *testing.B) {
			ctx := context.Background()
			db, sp := importDB(b, c.batch)
			var idle []time.Duration
			for range 200 {
				idle = append(idle, timedWrite(b, db, sp.OrganizationID))
			}
			var perPage, batchMax, publish time.Duration
			db.importWrite = func(p bool, d time.Duration) {
				if p {
					publish = max(publish, d)
				} else {
					batchMax = max(batchMax, d)
				}
			}
			var during []time.Duration
			for i := range b.N {
				target := Space{OrganizationID: sp.OrganizationID, Title: fmt.Sprintf("import %d", i), Visibility: "private", EditMode: "live"}
				if err := db.CreateSpace(ctx, &target); err != nil {
					b.Fatal(err)
				}
				change := RevisionChange{SpaceID: target.ID, Activate: true, Analyzer: modelAnalyzer{}, Batched: true, Edit: importEdit(c.pages)}
				switch c.mode {
				case "changed":
					// The pages it changes, published in one transaction first.
					oneTransaction(db, func() {
						if _, err := db.CreateRevision(ctx, change); err != nil {
							b.Fatal(err)
						}
					})
					change.Edit = reviseEdit(c.pages)
				case "cr":
					var user string
					if err := db.r().QueryRowContext(ctx, `SELECT id FROM users`).Scan(&user); err != nil {
						b.Fatal(err)
					}
					cr, err := db.CreateChangeRequest(ctx, "", target.ID, user, "cr", nil)
					if err != nil {
						b.Fatal(err)
					}
					change.Activate, change.ChangeRequest, change.Author = false, cr.ID, user
				}
				during = append(during, writesDuring(b, db, sp.OrganizationID, func() {
					start := time.Now()
					if _, err := db.CreateRevision(ctx, change); err != nil {
						b.Fatal(err)
					}
					perPage += time.Since(start)
				})...)
			}
			b.ReportMetric(float64(perPage.Nanoseconds())/float64(b.N*c.pages), "ns/page")
			b.ReportMetric(quantileMs(idle, 0.50), "idle-p50-ms")
			b.ReportMetric(quantileMs(idle, 0.99), "idle-p99-ms")
			b.ReportMetric(quantileMs(during, 0.50), "p50-ms")
			b.ReportMetric(quantileMs(during, 0.99), "p99-ms")
			b.ReportMetric(float64(len(during)), "writes-during")
			b.ReportMetric(float64(batchMax.Microseconds())/1000, "batch-max-ms")
			b.ReportMetric(float64(publish.Microseconds())/1000, "publish-ms")
		})
	}
}

// writesDuring creates spaces in orgID one after the other while fn runs,
// and says how long each took.
func writesDuring(b *testing.B, db *DB, orgID string, fn func()) []time.Duration {
	stop := make(chan struct{})
	var during []time.Duration
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			during = append(during, timedWrite(b, db, orgID))
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return during
}

// timedWrite creates a space and says how long it took.
func timedWrite(b *testing.B, db *DB, orgID string) time.Duration {
	s := Space{OrganizationID: orgID, Title: "w", Visibility: "private", EditMode: "live"}
	start := time.Now()
	if err := db.CreateSpace(context.Background(), &s); err != nil {
		b.Error(err)
	}
	return time.Since(start)
}

func quantileMs(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
}
