package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Leases let several processes (replicas) share one database's background
// work. A unit of work (an OpenAPI run, a translation run) is claimed in a
// write transaction that records the claiming process (DB.Process) and how
// long the claim holds (lease_until = now + JobLease, on the storage clock).
// The holder renews it while it runs (KeepLease); when the holder dies the
// lease runs out and another process claims the work again. Outcomes are
// written only while the writer still holds the lease, so a unit of work is
// recorded exactly once even when a slow owner comes back late. Claims of
// work are check-then-write inside one write transaction, which the single
// writer (SQLite BEGIN IMMEDIATE; PostgreSQL's advisory lock taken first in
// every unscoped write transaction) makes safe without SELECT … FOR UPDATE
// SKIP LOCKED; a periodic job's lease is a single upsert (TakeJobLease).

// JobLease is how long a claim holds without renewal by default
// (Options.JobLease, serve --job-lease): a dead process's work waits at
// most this long before another process resumes it.
const JobLease = 2 * time.Minute

// JobLease is this handle's lease on claimed work.
func (db *DB) JobLease() time.Duration { return db.jobLease }

// Process is this DB handle's owner id in leases: one per storage.Open, so
// two handles on one database act as two replicas.
func (db *DB) Process() string { return db.process }

// leaseUntil is the end of a lease taken or renewed now.
func (db *DB) leaseUntil(now time.Time) int64 { return ms(now.Add(db.jobLease)) }

// TakeJobLease claims (or renews) the lease of a named periodic job for
// this process: true when this process holds it until now + ttl. A lease
// held by another process that has not run out is left alone (false).
//
// The claim is one statement, an upsert whose update applies only when
// this process holds the lease already or it has run out: the engine's
// row lock makes it atomic, so it needs no writer of its own. It runs in
// a scope of its own (leaseScope), commuting: on PostgreSQL it takes no
// lock any organization's write waits for, so the replicas' sweeps (the
// audit mover's, every second) no longer stop every write of the
// installation (TestJobLeaseDoesNotWaitForWrites).
func (db *DB) TakeJobLease(ctx context.Context, name string, ttl time.Duration) (bool, error) {
	held := false
	// No cache depends on job leases: the change counter is left alone.
	err := db.writeScoped(ctx, leaseScope, false, func(tx *Tx) error {
		var owner string
		err := tx.QueryRowContext(ctx, takeJobLeaseSQL, name, db.process, ms(tx.Now.Add(ttl)), ms(tx.Now)).Scan(&owner)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // another live process runs it
		}
		held = err == nil && owner == db.process
		return err
	})
	return held && err == nil, err
}

// takeJobLeaseSQL inserts the lease, or takes it over when its owner is
// this process or it has run out (arguments: name, owner, lease_until,
// now); a row comes back only when this process holds it.
const takeJobLeaseSQL = `INSERT INTO job_leases (name, owner, lease_until) VALUES (?, ?, ?)
 ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
 WHERE job_leases.owner = excluded.owner OR job_leases.lease_until <= ?
 RETURNING owner`

// leaseScope is the write scope of TakeJobLease: commuting (both advisory
// locks shared on PostgreSQL) under a name no organization id has (a
// space first, as the audit mover's).
const leaseScope = commutingScope + " job leases"

// KeepLease renews a claimed unit of work, whose lease lasts lease, every
// quarter of it (wall time) with renew until stop is called. The returned
// context ends when the lease is lost (renew answers false: another process
// took the work over) or could not be renewed for a whole lease (the
// database is unreachable; another process may take it over), so the work
// stops instead of running twice; stop also ends it.
func KeepLease(ctx context.Context, lease time.Duration, renew func(context.Context) (bool, error)) (context.Context, context.CancelFunc) {
	if lease <= 0 {
		lease = JobLease
	}
	return keepLease(ctx, lease/4, renew)
}

func keepLease(ctx context.Context, every time.Duration, renew func(context.Context) (bool, error)) (context.Context, context.CancelFunc) {
	jobCtx, cancel := context.WithCancel(ctx)
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		renewed := time.Now()
		for {
			select {
			case <-jobCtx.Done():
				return
			case <-tick.C:
			}
			held, err := renew(jobCtx)
			switch {
			case err == nil && !held:
				cancel()
				return
			case err == nil:
				renewed = time.Now()
			case time.Since(renewed) >= 4*every:
				cancel()
				return
			}
		}
	}()
	return jobCtx, cancel
}

// renewLease runs update (a queue's renewal statement, with the new
// lease_until, the row's id and the owner as arguments) and reports
// whether this process still held the row.
func (db *DB) renewLease(ctx context.Context, update string, id string) (bool, error) {
	var n int64
	err := db.writeTx(ctx, false, func(tx *Tx) error {
		res, err := tx.exec(update, db.leaseUntil(tx.Now), id, db.process)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}
