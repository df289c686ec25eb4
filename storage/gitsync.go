package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// GitOperation is one requested Git Sync import or export (the queue of
// the Git Sync worker). RemoteURL carries the credentials the request gave
// and is cleared once the operation ends; URL never has them.
type GitOperation struct {
	ID             string
	OrganizationID string
	SpaceID        string
	UserID         string
	Kind           string // import | export
	URL            string
	RemoteURL      string
	Ref            string
	Params         string // JSON of the request's other fields
	Timestamp      time.Time
	Status         string // pending | running | completed | skipped | failed
	Stage          string // queued | fetching | converting | writing | pushing | done
	Message        string
	Commit         string
	RevisionID     string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// GitSyncState is a space's Git Sync set-up and the outcome of its latest
// operation. LastTimestamp is the newest operation timestamp applied.
type GitSyncState struct {
	SpaceID        string
	OrganizationID string
	URL            string
	Ref            string
	Provider       string
	TreeURL        string
	LastTimestamp  time.Time
	Commit         string // the commit the space was last synced with
	OperationID    string // the latest operation
	Legacy         bool
	UpdatedAt      time.Time
}

// RevisionGit is the Git commit a revision came from (import) or went to
// (export, CreatedByService).
type RevisionGit struct {
	Oid              string
	Message          string
	CreatedByService bool
	URL              string
	Ref              string
}

// ErrGitLeaseLost: the operation is no longer this process's to finish
// (its lease passed to another replica); nothing was written.
var ErrGitLeaseLost = errors.New("storage: the git operation's lease was lost")

// GitSync is the resolvers' side of Git Sync.
type GitSync interface {
	EnqueueGitOperation(ctx context.Context, op *GitOperation, provider, treeURL string) error
	GitOperation(ctx context.Context, spaceID, id string) (GitOperation, error)
	GitSyncState(ctx context.Context, spaceID string) (GitSyncState, error)
	DeleteLegacyGitInstallation(ctx context.Context, spaceID string) (bool, error)
	RevisionGit(ctx context.Context, revisionID string) (*RevisionGit, error)
	RevisionBodies(ctx context.Context, revID string) (map[string]string, error)
}

const gitOpCols = `id, organization_id, space_id, user_id, kind, url, COALESCE(remote_url, ''), ref, params, ts,
 status, stage, message, commit_oid, revision_id, created_at, updated_at`

func scanGitOperation(sc interface{ Scan(...any) error }) (GitOperation, error) {
	var o GitOperation
	var ts, created, updated int64
	if err := sc.Scan(&o.ID, &o.OrganizationID, &o.SpaceID, &o.UserID, &o.Kind, &o.URL, &o.RemoteURL, &o.Ref, &o.Params, &ts,
		&o.Status, &o.Stage, &o.Message, &o.Commit, &o.RevisionID, &created, &updated); err != nil {
		return o, notFound(err)
	}
	o.Timestamp, o.CreatedAt, o.UpdatedAt = FromMillis(ts), FromMillis(created), FromMillis(updated)
	return o, nil
}

// EnqueueGitOperation records a pending operation (op.ID, Status, Stage
// and the times are filled in) and, in the same transaction, the space's
// Git Sync set-up (URL, ref; provider and tree URL when given).
func (db *DB) EnqueueGitOperation(ctx context.Context, op *GitOperation, provider, treeURL string) error {
	op.ID, op.Status, op.Stage = NewID(), "pending", "queued"
	return db.Write(ctx, func(tx *Tx) error {
		op.CreatedAt, op.UpdatedAt = tx.Now, tx.Now
		if op.Timestamp.IsZero() {
			op.Timestamp = tx.Now
		}
		if _, err := tx.exec(`INSERT INTO git_operations (id, organization_id, space_id, user_id, kind, url, remote_url, ref, params, ts, status, stage, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 'queued', ?, ?)`, op.ID, op.OrganizationID, op.SpaceID, op.UserID, op.Kind, op.URL, op.RemoteURL,
			op.Ref, op.Params, ms(op.Timestamp), ms(tx.Now), ms(tx.Now)); err != nil {
			return err
		}
		_, err := tx.exec(`INSERT INTO git_sync_states (space_id, organization_id, url, ref, provider, tree_url, operation_id, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?)
 ON CONFLICT (space_id) DO UPDATE SET url = excluded.url, ref = excluded.ref,
 provider = CASE WHEN excluded.provider = '' THEN git_sync_states.provider ELSE excluded.provider END,
 tree_url = CASE WHEN excluded.tree_url = '' THEN git_sync_states.tree_url ELSE excluded.tree_url END,
 operation_id = excluded.operation_id, updated_at = excluded.updated_at`,
			op.SpaceID, op.OrganizationID, op.URL, op.Ref, provider, treeURL, op.ID, ms(tx.Now))
		return err
	})
}

// GitOperation reads an operation of a space.
func (db *DB) GitOperation(ctx context.Context, spaceID, id string) (GitOperation, error) {
	return scanGitOperation(db.r().QueryRowContext(ctx, `SELECT `+gitOpCols+` FROM git_operations WHERE space_id = ? AND id = ?`, spaceID, id))
}

// GitSyncState reads a space's Git Sync state; ErrNotFound when no
// operation was ever requested for it.
func (db *DB) GitSyncState(ctx context.Context, spaceID string) (GitSyncState, error) {
	var s GitSyncState
	var last, updated, legacy int64
	err := db.r().QueryRowContext(ctx, `SELECT space_id, organization_id, url, ref, provider, tree_url, last_ts, commit_oid, operation_id, legacy, updated_at
 FROM git_sync_states WHERE space_id = ?`, spaceID).Scan(&s.SpaceID, &s.OrganizationID, &s.URL, &s.Ref, &s.Provider, &s.TreeURL,
		&last, &s.Commit, &s.OperationID, &legacy, &updated)
	if err != nil {
		return s, notFound(err)
	}
	s.LastTimestamp, s.UpdatedAt, s.Legacy = FromMillis(last), FromMillis(updated), legacy != 0
	return s, nil
}

// DeleteLegacyGitInstallation clears a space's legacy Git Sync mark; false
// when there was none.
func (db *DB) DeleteLegacyGitInstallation(ctx context.Context, spaceID string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE git_sync_states SET legacy = 0, updated_at = ? WHERE space_id = ? AND legacy <> 0`, ms(tx.Now), spaceID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// RevisionGit reads the Git commit of a revision; nil when it has none.
func (db *DB) RevisionGit(ctx context.Context, revisionID string) (*RevisionGit, error) {
	return keptRead(ctx, db, keptKey("revision git", revisionID), one, func() (*RevisionGit, error) { return db.revisionGit(ctx, revisionID) })
}

func (db *DB) revisionGit(ctx context.Context, revisionID string) (*RevisionGit, error) {
	var g RevisionGit
	var by int64
	err := db.r().QueryRowContext(ctx, `SELECT oid, message, created_by_service, url, ref FROM revision_git WHERE revision_id = ?`, revisionID).
		Scan(&g.Oid, &g.Message, &by, &g.URL, &g.Ref)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	g.CreatedByService = by != 0
	return &g, err
}

// ---- the job queue ----

// noGitRunOfTheSpace keeps a claim to spaces with no operation under way
// (a live lease, in any process): a space's operations run one at a time,
// in timestamp order.
const noGitRunOfTheSpace = ` AND NOT EXISTS (SELECT 1 FROM git_operations o
 WHERE o.space_id = g.space_id AND o.status = 'running' AND o.lease_until >= ? AND o.id <> g.id)`

// ClaimGitOperation leases to this process (status 'running', see
// leases.go) the operation with the oldest timestamp, pending or whose
// lease has run out (its process died), of a space with no operation under
// way. nil when there is nothing this process may run.
func (db *DB) ClaimGitOperation(ctx context.Context) (*GitOperation, error) {
	var job *GitOperation
	err := db.writeTx(ctx, false, func(tx *Tx) error {
		const q = `SELECT ` + gitOpCols + ` FROM git_operations g`
		// Pending operations and those whose owner died, together: a
		// space's operations stay in timestamp order across a takeover.
		o, err := scanGitOperation(tx.QueryRowContext(ctx, q+` WHERE (g.status = 'pending' OR (g.status = 'running' AND g.lease_until < ?))`+
			noGitRunOfTheSpace+` ORDER BY g.ts, g.id LIMIT 1`, ms(tx.Now), ms(tx.Now)))
		if err == ErrNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE git_operations SET status = 'running', lease_owner = ?, lease_until = ?, updated_at = ? WHERE id = ?`,
			db.process, db.leaseUntil(tx.Now), ms(tx.Now), o.ID); err != nil {
			return err
		}
		o.Status = "running"
		job = &o
		return nil
	})
	return job, err
}

// RenewGitOperation extends this process's lease on a claimed operation;
// false when it is no longer this process's.
func (db *DB) RenewGitOperation(ctx context.Context, id string) (bool, error) {
	return db.renewLease(ctx, `UPDATE git_operations SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'running'`, id)
}

// SetGitOperationStage records how far a claimed operation got.
func (db *DB) SetGitOperationStage(ctx context.Context, id, stage string) error {
	return db.writeTx(ctx, false, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE git_operations SET stage = ?, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?`,
			stage, ms(tx.Now), id, db.process)
		return err
	})
}

// ReleaseGitOperation puts a claimed operation back in the queue (the
// worker is stopping), unless its lease has passed to another process.
func (db *DB) ReleaseGitOperation(ctx context.Context, id string) error {
	return db.writeTx(ctx, false, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE git_operations SET status = 'pending', stage = 'queued', lease_owner = NULL, lease_until = NULL
 WHERE id = ? AND status = 'running' AND lease_owner = ?`, id, db.process)
		return err
	})
}

// PendingGitOperations counts the operations waiting or under way (queue gauge).
func (db *DB) PendingGitOperations(ctx context.Context) (int, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM git_operations WHERE status IN ('pending', 'running')`).Scan(&n)
	return n, err
}

// GitOutcome is how a claimed operation ended.
type GitOutcome struct {
	Status     string // completed | skipped | failed
	Message    string
	Commit     string // the commit imported or pushed ("" when none)
	RevisionID string // the revision written (import) or exported
	// Applied: the operation changed the space or the repository, so its
	// timestamp becomes the space's newest and Commit its synced commit.
	Applied bool
	// Git, when set, is recorded as RevisionID's commit.
	Git *RevisionGit
}

// FinishGitOperation records an operation's outcome in one write (with
// the changes ctx records: audit entry, webhook).
func (db *DB) FinishGitOperation(ctx context.Context, op GitOperation, out GitOutcome) error {
	return db.Write(ctx, func(tx *Tx) error { return db.FinishGitOperationIn(tx, op, out) })
}

// FinishGitOperationIn is FinishGitOperation inside tx (an import writes
// its revision and its outcome in one transaction). ErrGitLeaseLost when
// the operation is no longer this process's; ErrGitSuperseded when a newer
// operation of the space was applied meanwhile (for an applying outcome).
func (db *DB) FinishGitOperationIn(tx *Tx, op GitOperation, out GitOutcome) error {
	if out.Applied {
		var last int64
		if err := tx.QueryRowContext(tx.ctx, `SELECT last_ts FROM git_sync_states WHERE space_id = ?`, op.SpaceID).Scan(&last); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if last > ms(op.Timestamp) {
			return ErrGitSuperseded
		}
	}
	res, err := tx.exec(`UPDATE git_operations SET status = ?, stage = 'done', message = ?, commit_oid = ?, revision_id = ?, remote_url = NULL,
 lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?`,
		out.Status, out.Message, out.Commit, out.RevisionID, ms(tx.Now), op.ID, db.process)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrGitLeaseLost
	}
	if out.Applied {
		if _, err := tx.exec(`UPDATE git_sync_states SET last_ts = ?, commit_oid = ?, updated_at = ? WHERE space_id = ?`,
			ms(op.Timestamp), out.Commit, ms(tx.Now), op.SpaceID); err != nil {
			return err
		}
	}
	if out.Git != nil && out.RevisionID != "" {
		by := 0
		if out.Git.CreatedByService {
			by = 1
		}
		if _, err := tx.exec(`INSERT INTO revision_git (revision_id, oid, message, created_by_service, url, ref) VALUES (?, ?, ?, ?, ?, ?)
 ON CONFLICT (revision_id) DO UPDATE SET oid = excluded.oid, message = excluded.message, created_by_service = excluded.created_by_service,
 url = excluded.url, ref = excluded.ref`, out.RevisionID, out.Git.Oid, out.Git.Message, by, out.Git.URL, out.Git.Ref); err != nil {
			return err
		}
	}
	return nil
}

// ErrGitSuperseded: a newer operation of the space was applied after this
// one was requested; an older operation never overwrites a newer one.
var ErrGitSuperseded = errors.New("storage: a newer git operation of the space was applied")
