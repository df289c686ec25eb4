package main

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkInsertExtraPages measures what a WAL frame costs the single
// writer: bare's durable insert (WAL, synchronous=FULL, docsapi's
// checkpoint threshold of 8,000 pages) with k more indexes on the table,
// each an appending b-tree, so every insert dirties k more pages with no
// more statements; sync=OFF (measuring only: no fsync) separates the
// frames' writes from the fsync. It reports the writer's hold split into the statement
// and the COMMIT (the WAL frames' writes and the fsync), and the frames
// written per commit. Run only by hand (README "Performance"):
//
//	go test -run x -bench InsertExtraPages -benchtime 2000x ./bench/bare
func BenchmarkInsertExtraPages(b *testing.B) {
	for _, k := range []int{0, 5, 11} {
		for _, sync := range []string{"FULL", "OFF"} {
			b.Run(fmt.Sprintf("k=%d/sync=%s", k, sync), func(b *testing.B) { insertExtraPages(b, k, sync) })
		}
	}
}

func insertExtraPages(b *testing.B, k int, sync string) {
	ctx := context.Background()
	w, err := open(filepath.Join(b.TempDir(), "b.db"), 1, "&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.ExecContext(ctx, `PRAGMA synchronous = `+sync+`; PRAGMA wal_autocheckpoint = 8000;
 CREATE TABLE items (id TEXT PRIMARY KEY, owner TEXT NOT NULL, email TEXT NOT NULL, name TEXT NOT NULL, role TEXT, created_at INTEGER NOT NULL);
 CREATE INDEX items_by_owner ON items (owner, created_at, id);`); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < k; i++ {
		if _, err := w.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX items_extra_%d ON items (created_at, id)`, i)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := seed(ctx, w, 10000, func(s string) string { return s }); err != nil {
		b.Fatal(err)
	}
	ins, err := w.PrepareContext(ctx, `INSERT INTO items (`+cols+`) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	ms := time.Now().UnixMilli()
	insert := func() (stmt, commit time.Duration) {
		ms++
		t0 := time.Now()
		tx, err := w.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.StmtContext(ctx, ins).ExecContext(ctx, newID(), owner, "x@example.com", "bench", "member", ms); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		return t1.Sub(t0), time.Since(t1)
	}
	// Frames per commit: 200 commits on an emptied WAL (no
	// automatic checkpoint in between at this size).
	var busy, frames, done int
	if err := w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		insert()
	}
	if err := w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		b.Fatal(err)
	}
	var stmt, commit time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, c := insert()
		stmt += s
		commit += c
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(frames)/200, "frames/op")
	b.ReportMetric(float64(stmt.Microseconds())/float64(b.N), "stmt-µs/op")
	b.ReportMetric(float64(commit.Microseconds())/float64(b.N), "commit-µs/op")

}

// cpuTime is the process's user and system CPU time so far (the fsync's
// and the pwrites' kernel work included, its waiting not).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
