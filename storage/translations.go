package storage

import (
	"context"
	"database/sql"
	"time"
)

// Translation is a standing job that translates a source space into a
// target space in another language, with the measured totals of its runs.
type Translation struct {
	ID               string
	OrganizationID   string
	SourceSpace      string
	SourceLanguage   string
	Language         string
	Instructions     string // JSON document
	Status           string // pending | running | completed | failed
	ErrorCode        *string
	ErrorMessage     *string
	TargetSpace      *string
	ResultRevision   *string
	Runs             int
	TotalWords       int
	TotalPages       int
	TotalDurationMs  int64
	LatestDurationMs int64
	LatestPages      int
	LatestWords      int
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

const translationCols = `t.id, t.organization_id, t.source_space, t.source_language, t.language, t.instructions, t.status,
 t.error_code, t.error_message, t.target_space, t.result_revision, t.runs, t.total_words, t.total_pages,
 t.total_duration_ms, t.latest_duration_ms, t.latest_pages, t.latest_words, t.created_at, t.updated_at`

func scanTranslation(sc interface{ Scan(...any) error }, extra ...any) (Translation, error) {
	var t Translation
	var code, msg, target, result sql.NullString
	var created, updated int64
	if err := sc.Scan(append([]any{&t.ID, &t.OrganizationID, &t.SourceSpace, &t.SourceLanguage, &t.Language, &t.Instructions, &t.Status,
		&code, &msg, &target, &result, &t.Runs, &t.TotalWords, &t.TotalPages,
		&t.TotalDurationMs, &t.LatestDurationMs, &t.LatestPages, &t.LatestWords, &created, &updated}, extra...)...); err != nil {
		return t, notFound(err)
	}
	t.ErrorCode, t.ErrorMessage, t.TargetSpace, t.ResultRevision = nullStr(code), nullStr(msg), nullStr(target), nullStr(result)
	t.CreatedAt, t.UpdatedAt = FromMillis(created), FromMillis(updated)
	return t, nil
}

// Translation reads a translation of orgID.
func (db *DB) Translation(ctx context.Context, orgID, id string) (Translation, error) {
	return scanTranslation(db.r().QueryRowContext(ctx, `SELECT `+translationCols+` FROM translations t
 WHERE t.organization_id = ? AND t.id = ?`, orgID, id))
}

// ListTranslations pages through an organization's translations, oldest first.
func (db *DB) ListTranslations(ctx context.Context, orgID string, pq PageQuery) (Page[Translation], error) {
	spec := listSpec{Select: translationCols, From: `FROM translations t WHERE t.organization_id = ?`,
		Args: []any{orgID}, SortCol: "t.created_at", IDCol: "t.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Translation, Cursor, error) {
		t, err := scanTranslation(rows)
		return t, Cursor{N: t.CreatedAt.UnixMilli(), ID: t.ID}, err
	})
}

// CreateTranslation adds a translation whose first run is pending (t.ID
// and the timestamps are filled in).
func (db *DB) CreateTranslation(ctx context.Context, t *Translation) error {
	t.ID, t.Status = NewID(), "pending"
	return db.Write(ctx, func(tx *Tx) error {
		t.CreatedAt, t.UpdatedAt = tx.Now, tx.Now
		_, err := tx.exec(`INSERT INTO translations (id, organization_id, source_space, source_language, language, instructions, status, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`, t.ID, t.OrganizationID, t.SourceSpace, t.SourceLanguage, t.Language, t.Instructions, ms(tx.Now), ms(tx.Now))
		return err
	})
}

// updateTranslation runs one UPDATE of a translation of orgID; ErrNotFound
// when it does not exist.
func (db *DB) updateTranslation(ctx context.Context, orgID, id, set string, args ...any) error {
	return db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE translations SET `+set+`, updated_at = ? WHERE organization_id = ? AND id = ?`,
			append(args, ms(tx.Now), orgID, id)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// SetTranslationInstructions replaces a translation's instructions.
func (db *DB) SetTranslationInstructions(ctx context.Context, orgID, id, instructions string) error {
	return db.updateTranslation(ctx, orgID, id, `instructions = ?`, instructions)
}

// RequestTranslationRun queues a run: the translation becomes pending, or,
// while a run is under way, another run follows it.
func (db *DB) RequestTranslationRun(ctx context.Context, orgID, id string) error {
	return db.updateTranslation(ctx, orgID, id, `queued = CASE WHEN status = 'running' THEN 1 ELSE queued END,
 status = CASE WHEN status = 'running' THEN 'running' ELSE 'pending' END`)
}

// DeleteTranslation deletes a translation (its target space stays); false
// when it did not exist. A run under way finds the row gone and discards
// its revision.
func (db *DB) DeleteTranslation(ctx context.Context, orgID, id string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM translations WHERE organization_id = ? AND id = ?`, orgID, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// ---- the job queue ----

// TranslationJob is one claimed run.
type TranslationJob struct {
	Translation
	SourceRevision *string // the source revision the last successful run translated
	GlossaryHash   string  // the glossary the last successful run applied ("" for none)
}

// noRunOfTheOrganization keeps a claim to organizations with no run under
// way (a live lease, in any process): one organization's runs go one at a
// time, so its slow or hanging run never holds a second runner slot while
// another organization's run waits.
const noRunOfTheOrganization = ` AND NOT EXISTS (SELECT 1 FROM translations o
 WHERE o.organization_id = t.organization_id AND o.status = 'running' AND o.lease_until >= ? AND o.id <> t.id)`

// ClaimTranslationJob leases the oldest pending translation of an
// organization with no run under way to this process (status 'running',
// see leases.go) and returns it; when none is pending, a run whose lease
// has run out (its process died) is claimed again. nil when there is
// nothing this process may run.
func (db *DB) ClaimTranslationJob(ctx context.Context) (*TranslationJob, error) {
	var job *TranslationJob
	err := db.Write(ctx, func(tx *Tx) error {
		var srcRev sql.NullString
		var glossary string
		const cols = `SELECT ` + translationCols + `, t.source_revision, t.glossary_hash FROM translations t`
		t, err := scanTranslation(tx.QueryRowContext(ctx, cols+` WHERE t.status = 'pending'`+noRunOfTheOrganization+` ORDER BY t.updated_at, t.id LIMIT 1`, ms(tx.Now)), &srcRev, &glossary)
		if err == ErrNotFound {
			// Runs under way are few (a few per process).
			t, err = scanTranslation(tx.QueryRowContext(ctx, cols+` WHERE t.status = 'running' AND t.lease_until < ?`+noRunOfTheOrganization+` ORDER BY t.updated_at, t.id LIMIT 1`, ms(tx.Now), ms(tx.Now)), &srcRev, &glossary)
		}
		if err == ErrNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE translations SET status = 'running', lease_owner = ?, lease_until = ?, updated_at = ? WHERE id = ?`,
			db.process, db.leaseUntil(tx.Now), ms(tx.Now), t.ID); err != nil {
			return err
		}
		t.Status = "running"
		job = &TranslationJob{Translation: t, SourceRevision: nullStr(srcRev), GlossaryHash: glossary}
		return nil
	})
	return job, err
}

// RenewTranslationJob extends this process's lease on a claimed run;
// false when the run is no longer this process's (taken over, deleted).
func (db *DB) RenewTranslationJob(ctx context.Context, id string) (bool, error) {
	return db.renewLease(ctx, `UPDATE translations SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'running'`, id)
}

// ReleaseTranslationJob puts a claimed run back in the queue untouched (the
// runner is stopping), unless its lease has passed to another process.
func (db *DB) ReleaseTranslationJob(ctx context.Context, id string) error {
	return db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE translations SET status = 'pending', lease_owner = NULL, lease_until = NULL
 WHERE id = ? AND status = 'running' AND lease_owner = ?`, id, db.process)
		return err
	})
}

// RequeueInterruptedTranslationJobs puts runs left 'running' by a stopped
// process back in the queue: this process's own (it is starting, so none
// of them runs) and those whose lease has run out; runs of live replicas
// are left alone. Called once when the runner starts.
func (db *DB) RequeueInterruptedTranslationJobs(ctx context.Context) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE translations SET status = 'pending', lease_owner = NULL, lease_until = NULL
 WHERE status = 'running' AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)`, db.process, ms(tx.Now))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// PendingTranslations counts the runs waiting or under way (queue gauge).
func (db *DB) PendingTranslations(ctx context.Context) (int, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM translations WHERE status IN ('pending', 'running')`).Scan(&n)
	return n, err
}

// FailTranslationJob ends a run that made nothing: the translation is
// failed with code and message (pending again when another run was asked
// for meanwhile). The previous result, when any, stays.
func (db *DB) FailTranslationJob(ctx context.Context, id, code, message string) error {
	return db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE translations SET status = CASE WHEN queued = 1 THEN 'pending' ELSE 'failed' END, queued = 0,
 lease_owner = NULL, lease_until = NULL, error_code = ?, error_message = ?, updated_at = ?
 WHERE id = ? AND status = 'running' AND lease_owner = ?`, code, message, ms(tx.Now), id, db.process)
		return err
	})
}

// TranslationPage maps a source page to the target page translating it.
type TranslationPage struct {
	SourcePage    string
	SourceVersion string // the version of the source page that was translated
	TargetPage    string
}

// TranslationPages reads the page map of a translation by source page id.
func (db *DB) TranslationPages(ctx context.Context, id string) (map[string]TranslationPage, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT source_page, source_version, target_page FROM translation_pages WHERE translation_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]TranslationPage{}
	for rows.Next() {
		var p TranslationPage
		if err := rows.Scan(&p.SourcePage, &p.SourceVersion, &p.TargetPage); err != nil {
			return nil, err
		}
		out[p.SourcePage] = p
	}
	return out, rows.Err()
}

// CreateTranslationTarget creates the target space of a translation (after
// its source, in the same organization and collection, with an empty first
// revision) and records it, in one transaction. sp.ID, sp.RevisionID and
// the timestamps are filled in.
func (db *DB) CreateTranslationTarget(ctx context.Context, translationID string, sp *Space) error {
	sp.ID, sp.RevisionID = NewID(), NewID()
	return db.Write(ctx, func(tx *Tx) error {
		if err := insertSpaceAtEnd(tx, sp); err != nil {
			return err
		}
		res, err := tx.exec(`UPDATE translations SET target_space = ?, updated_at = ? WHERE id = ? AND status = 'running' AND lease_owner = ?`,
			sp.ID, ms(tx.Now), translationID, db.process)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound // deleted meanwhile: no orphan space
		}
		return nil
	})
}

// RevisionTree reads a revision's page tree with bodies, and its files.
func (db *DB) RevisionTree(ctx context.Context, revID string) (*Tree, error) {
	return loadTree(ctx, db.r(), revID, true)
}

// TranslationRun is the outcome of a successful run.
type TranslationRun struct {
	ID             string
	TargetSpace    string
	SourceRevision string
	GlossaryHash   string            // the glossary the run applied ("" for none)
	Pages          []TranslationPage // the whole page map after the run
	NewPages       int               // source pages translated for the first time
	Translated     int               // pages translated by this run
	Words          int               // words sent to the provider by this run
	Duration       time.Duration
}

// RecordTranslationRun returns the step that records a run in the
// transaction of the revision it made (RevisionChange.Also): the revision
// and the run's outcome are committed together or not at all. When the
// translation was deleted meanwhile the step fails with ErrNotFound, which
// rolls the revision back.
func RecordTranslationRun(run TranslationRun) func(tx *Tx, revID string) error {
	return func(tx *Tx, revID string) error { return finishTranslationRun(tx, run, revID) }
}

// FinishTranslationRun records a run that needed no new revision (nothing
// changed since the last one).
func (db *DB) FinishTranslationRun(ctx context.Context, run TranslationRun) error {
	return db.Write(ctx, func(tx *Tx) error { return finishTranslationRun(tx, run, "") })
}

func finishTranslationRun(tx *Tx, run TranslationRun, revID string) error {
	dur := run.Duration.Milliseconds()
	res, err := tx.exec(`UPDATE translations SET status = CASE WHEN queued = 1 THEN 'pending' ELSE 'completed' END, queued = 0,
 lease_owner = NULL, lease_until = NULL, error_code = NULL, error_message = NULL, target_space = ?, result_revision = COALESCE(?, result_revision), source_revision = ?, glossary_hash = ?,
 runs = runs + 1, total_words = total_words + ?, total_pages = total_pages + ?, total_duration_ms = total_duration_ms + ?,
 latest_duration_ms = ?, latest_pages = ?, latest_words = ?, updated_at = ?
 WHERE id = ? AND status = 'running' AND lease_owner = ?`,
		run.TargetSpace, nilIfEmpty(revID), run.SourceRevision, run.GlossaryHash, run.Words, run.NewPages, dur, dur, run.Translated, run.Words, ms(tx.Now), run.ID, tx.db.process)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	if _, err := tx.exec(`DELETE FROM translation_pages WHERE translation_id = ?`, run.ID); err != nil {
		return err
	}
	rows := make([][]any, 0, len(run.Pages))
	for _, p := range run.Pages {
		rows = append(rows, []any{run.ID, p.SourcePage, p.SourceVersion, p.TargetPage})
	}
	return insertBatch(tx, `INSERT INTO translation_pages (translation_id, source_page, source_version, target_page) VALUES `, 4, rows)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
