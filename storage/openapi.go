package storage

import (
	"context"
	"database/sql"
	"math"
	"slices"
	"strings"
	"time"
)

// OpenAPISpec is an organization's OpenAPI specification and the state of
// its processing. The source text is not loaded here (it may be megabytes);
// only the processor reads it, through ClaimOpenAPIJob.
type OpenAPISpec struct {
	ID               string
	OrganizationID   string
	Slug             string
	SourceURL        *string
	Visibility       string
	State            string // pending | progress | complete
	LastVersion      *string
	LastProcessedAt  *time.Time
	LastErrorCode    *string
	LastErrorMessage *string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// OpenAPISource is where a spec's document comes from: exactly one of URL
// and Text is set.
type OpenAPISource struct {
	URL  string
	Text string
}

func (s OpenAPISource) args() (url, text any) {
	if s.URL != "" {
		return s.URL, nil
	}
	return nil, s.Text
}

const openAPISpecCols = `s.id, s.organization_id, s.slug, s.source_url, s.visibility, s.processing_state,
 s.last_version, s.last_processed_at, s.last_error_code, s.last_error_message, s.created_at, s.updated_at`

func scanOpenAPISpec(sc interface{ Scan(...any) error }) (OpenAPISpec, error) {
	var s OpenAPISpec
	var srcURL, lastVersion, code, msg sql.NullString
	var processed sql.NullInt64
	var created, updated int64
	if err := sc.Scan(&s.ID, &s.OrganizationID, &s.Slug, &srcURL, &s.Visibility, &s.State,
		&lastVersion, &processed, &code, &msg, &created, &updated); err != nil {
		return s, notFound(err)
	}
	s.SourceURL, s.LastVersion, s.LastErrorCode, s.LastErrorMessage = nullStr(srcURL), nullStr(lastVersion), nullStr(code), nullStr(msg)
	s.LastProcessedAt, s.CreatedAt, s.UpdatedAt = nullMillis(processed), FromMillis(created), FromMillis(updated)
	return s, nil
}

// OpenAPISpec reads the spec of orgID with slug.
func (db *DB) OpenAPISpec(ctx context.Context, orgID, slug string) (OpenAPISpec, error) {
	return scanOpenAPISpec(db.r().QueryRowContext(ctx, `SELECT `+openAPISpecCols+` FROM openapi_specs s
 WHERE s.organization_id = ? AND s.slug = ?`, orgID, slug))
}

// ListOpenAPISpecs pages through an organization's specs, oldest first.
func (db *DB) ListOpenAPISpecs(ctx context.Context, orgID string, pq PageQuery) (Page[OpenAPISpec], error) {
	spec := listSpec{Select: openAPISpecCols, From: `FROM openapi_specs s WHERE s.organization_id = ?`,
		Args: []any{orgID}, SortCol: "s.created_at", IDCol: "s.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (OpenAPISpec, Cursor, error) {
		s, err := scanOpenAPISpec(rows)
		return s, Cursor{N: s.CreatedAt.UnixMilli(), ID: s.ID}, err
	})
}

// CreateOpenAPISpec adds a spec waiting for processing; ErrExists when the
// slug is taken in the organization.
func (db *DB) CreateOpenAPISpec(ctx context.Context, orgID, slug string, src OpenAPISource) (OpenAPISpec, error) {
	err := db.Write(ctx, func(tx *Tx) error { return insertOpenAPISpec(tx, orgID, slug, src) })
	if err != nil {
		return OpenAPISpec{}, err
	}
	return db.OpenAPISpec(ctx, orgID, slug)
}

func insertOpenAPISpec(tx *Tx, orgID, slug string, src OpenAPISource) error {
	u, t := src.args()
	_, err := tx.exec(`INSERT INTO openapi_specs (id, organization_id, slug, source_url, source_text, processing_state, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`, NewID(), orgID, slug, u, t, ms(tx.Now), ms(tx.Now))
	return uniqueAs(err, ErrExists)
}

// PutOpenAPISpec creates the spec or gives it a new source; either way it
// waits for processing again. created tells which happened.
func (db *DB) PutOpenAPISpec(ctx context.Context, orgID, slug string, src OpenAPISource) (spec OpenAPISpec, created bool, err error) {
	err = db.Write(ctx, func(tx *Tx) error {
		u, t := src.args()
		res, err := tx.exec(`UPDATE openapi_specs SET source_url = ?, source_text = ?, processing_state = 'pending',
 generation = generation + 1, updated_at = ? WHERE organization_id = ? AND slug = ?`, u, t, ms(tx.Now), orgID, slug)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		created = true
		return insertOpenAPISpec(tx, orgID, slug, src)
	})
	if err != nil {
		return spec, false, err
	}
	spec, err = db.OpenAPISpec(ctx, orgID, slug)
	return spec, created, err
}

// SetOpenAPISpecVisibility changes who may read the spec.
func (db *DB) SetOpenAPISpecVisibility(ctx context.Context, orgID, slug, visibility string) error {
	return db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE openapi_specs SET visibility = ?, updated_at = ? WHERE organization_id = ? AND slug = ?`,
			visibility, ms(tx.Now), orgID, slug)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// DeleteOpenAPISpec deletes a spec and its versions; false when it did not
// exist. A run in progress for it finds the row gone and discards its result.
func (db *DB) DeleteOpenAPISpec(ctx context.Context, orgID, slug string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM openapi_specs WHERE organization_id = ? AND slug = ?`, orgID, slug)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// OpenAPIVersion is one successfully processed document of a spec.
type OpenAPIVersion struct {
	ID          string
	SpecID      string
	CreatedAt   time.Time
	Title       string
	Version     string // info.version
	OpenAPI     string // the document's openapi field
	Format      string // json | yaml
	ContentHash string
	SourceURL   *string
}

const openAPIVersionCols = `v.id, v.spec_id, v.created_at, v.title, v.version, v.openapi, v.format, v.content_hash, v.source_url`

func scanOpenAPIVersion(sc interface{ Scan(...any) error }, extra ...any) (OpenAPIVersion, error) {
	var v OpenAPIVersion
	var created int64
	var src sql.NullString
	if err := sc.Scan(append([]any{&v.ID, &v.SpecID, &created, &v.Title, &v.Version, &v.OpenAPI, &v.Format, &v.ContentHash, &src}, extra...)...); err != nil {
		return v, notFound(err)
	}
	v.CreatedAt, v.SourceURL = FromMillis(created), nullStr(src)
	return v, nil
}

// ListOpenAPIVersions pages through a spec's versions, newest first.
func (db *DB) ListOpenAPIVersions(ctx context.Context, specID string, pq PageQuery) (Page[OpenAPIVersion], error) {
	spec := listSpec{Select: openAPIVersionCols, From: `FROM openapi_spec_versions v WHERE v.spec_id = ?`,
		Args: []any{specID}, SortCol: "v.created_at", IDCol: "v.id", Desc: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (OpenAPIVersion, Cursor, error) {
		v, err := scanOpenAPIVersion(rows)
		return v, Cursor{N: v.CreatedAt.UnixMilli(), ID: v.ID}, err
	})
}

// OpenAPIVersion reads one version of a spec.
func (db *DB) OpenAPIVersion(ctx context.Context, specID, versionID string) (OpenAPIVersion, error) {
	return scanOpenAPIVersion(db.r().QueryRowContext(ctx, `SELECT `+openAPIVersionCols+` FROM openapi_spec_versions v
 WHERE v.spec_id = ? AND v.id = ?`, specID, versionID))
}

// OpenAPIVersionDocument reads one version with its document.
func (db *DB) OpenAPIVersionDocument(ctx context.Context, specID, versionID string) (OpenAPIVersion, []byte, error) {
	var doc []byte
	v, err := scanOpenAPIVersion(db.r().QueryRowContext(ctx, `SELECT `+openAPIVersionCols+`, v.document FROM openapi_spec_versions v
 WHERE v.spec_id = ? AND v.id = ?`, specID, versionID), &doc)
	return v, doc, err
}

// ---- processing queue ----

// OpenAPIJob is one claimed processing run: the spec's source as it was
// when claimed and the hash of its current last version.
type OpenAPIJob struct {
	SpecID         string
	OrganizationID string
	Slug           string
	Generation     int64
	SourceURL      *string
	SourceText     *string
	LastHash       string // "" when the spec has no version yet
}

// ClaimOpenAPIJob leases the oldest pending spec to this process (state
// 'progress', see leases.go) and returns it; when none is pending, a run
// whose lease has run out (its process died) is claimed again. nil when
// there is nothing to run. It is ClaimOpenAPIJobFair without a cap.
func (db *DB) ClaimOpenAPIJob(ctx context.Context) (*OpenAPIJob, error) {
	return db.ClaimOpenAPIJobFair(ctx, 0, "")
}

// ClaimOpenAPIJobFair claims like ClaimOpenAPIJob, fairly across
// organizations: first the oldest pending spec of an organization with no
// run in progress other than avoid (the organization the caller served
// last: "" for none), else the oldest of one with fewer than maxPerOrg
// runs in progress (0: no cap). One organization's backlog then never
// holds every worker, and another organization's spec is the next claimed.
func (db *DB) ClaimOpenAPIJobFair(ctx context.Context, maxPerOrg int, avoid string) (*OpenAPIJob, error) {
	var job *OpenAPIJob
	err := db.Write(ctx, func(tx *Tx) error {
		var j OpenAPIJob
		var srcURL, srcText, hash sql.NullString
		const cols = `SELECT s.id, s.organization_id, s.slug, s.generation, s.source_url, s.source_text, v.content_hash
 FROM openapi_specs s LEFT JOIN openapi_spec_versions v ON v.id = s.last_version`
		// Runs in progress are few (one per worker per process).
		running := map[string]int{}
		rows, err := tx.QueryContext(ctx, `SELECT organization_id FROM openapi_specs WHERE processing_state = 'progress' AND lease_until >= ?`, ms(tx.Now))
		if err != nil {
			return err
		}
		for rows.Next() {
			var org string
			if err := rows.Scan(&org); err != nil {
				rows.Close()
				return err
			}
			running[org]++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// pending claims the oldest pending spec outside the organizations
		// running at least atMost runs (and avoid, when avoiding).
		pending := func(atMost int, avoiding bool) error {
			q, args := cols+` WHERE s.processing_state = 'pending'`, []any{}
			var busy []string
			for org, n := range running {
				if n >= atMost {
					busy = append(busy, org)
				}
			}
			if avoiding && avoid != "" && running[avoid] < atMost {
				busy = append(busy, avoid)
			}
			slices.Sort(busy) // one statement text a set of organizations
			if len(busy) > 0 {
				q += ` AND s.organization_id NOT IN (?` + strings.Repeat(",?", len(busy)-1) + `)`
				for _, org := range busy {
					args = append(args, org)
				}
			}
			return tx.QueryRowContext(ctx, q+` ORDER BY s.updated_at, s.id LIMIT 1`, args...).
				Scan(&j.SpecID, &j.OrganizationID, &j.Slug, &j.Generation, &srcURL, &srcText, &hash)
		}
		err = pending(1, true)
		if err == sql.ErrNoRows && (len(running) > 0 || avoid != "") {
			if maxPerOrg > 0 {
				err = pending(maxPerOrg, false)
			} else {
				err = pending(math.MaxInt, false)
			}
		}
		if err == sql.ErrNoRows {
			err = tx.QueryRowContext(ctx, cols+` WHERE s.processing_state = 'progress' AND s.lease_until < ? ORDER BY s.updated_at, s.id LIMIT 1`, ms(tx.Now)).
				Scan(&j.SpecID, &j.OrganizationID, &j.Slug, &j.Generation, &srcURL, &srcText, &hash)
		}
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE openapi_specs SET processing_state = 'progress', lease_owner = ?, lease_until = ?, updated_at = ? WHERE id = ?`,
			db.process, db.leaseUntil(tx.Now), ms(tx.Now), j.SpecID); err != nil {
			return err
		}
		j.SourceURL, j.SourceText, j.LastHash = nullStr(srcURL), nullStr(srcText), hash.String
		job = &j
		return nil
	})
	return job, err
}

// RenewOpenAPIJob extends this process's lease on a claimed run; false
// when the run is no longer this process's (taken over, changed, deleted).
func (db *DB) RenewOpenAPIJob(ctx context.Context, job *OpenAPIJob) (bool, error) {
	return db.renewLease(ctx, `UPDATE openapi_specs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND processing_state = 'progress'`, job.SpecID)
}

// OpenAPIOutcome is the result of a run: a document (success) or an error
// code and message (failure).
type OpenAPIOutcome struct {
	Version      *NewOpenAPIVersion
	ErrorCode    string
	ErrorMessage string
}

// NewOpenAPIVersion is a parsed document to store.
type NewOpenAPIVersion struct {
	Title, Version, OpenAPI, Format, ContentHash string
	SourceURL                                    *string
	Document                                     []byte
}

// OpenAPIFinish says what FinishOpenAPIJob did.
type OpenAPIFinish struct {
	Applied    bool   // false: the spec was deleted or given a new source meanwhile
	NewVersion string // id of the version created ("" when none: failure or unchanged document)
}

// FinishOpenAPIJob records a run's outcome. A success stores a version
// unless the document is the one of the last version; a failure keeps the
// last version. Either way the spec is complete with lastProcessedAt now.
// When the spec changed since the claim (a newer source is pending), was
// deleted, or the run's lease passed to another process, the outcome is
// dropped.
func (db *DB) FinishOpenAPIJob(ctx context.Context, job *OpenAPIJob, out OpenAPIOutcome) (OpenAPIFinish, error) {
	var fin OpenAPIFinish
	err := db.Write(ctx, func(tx *Tx) error {
		var lastHash sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT v.content_hash FROM openapi_specs s LEFT JOIN openapi_spec_versions v ON v.id = s.last_version
 WHERE s.id = ? AND s.generation = ? AND s.processing_state = 'progress' AND s.lease_owner = ?`, job.SpecID, job.Generation, db.process).Scan(&lastHash)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		fin.Applied = true
		now := ms(tx.Now)
		if out.Version == nil {
			_, err := tx.exec(`UPDATE openapi_specs SET processing_state = 'complete', lease_owner = NULL, lease_until = NULL, last_processed_at = ?, updated_at = ?,
 last_error_code = ?, last_error_message = ? WHERE id = ?`, now, now, out.ErrorCode, out.ErrorMessage, job.SpecID)
			return err
		}
		v := out.Version
		if v.ContentHash != lastHash.String {
			fin.NewVersion = NewID()
			if _, err := tx.exec(`INSERT INTO openapi_spec_versions (id, spec_id, created_at, title, version, openapi, format, content_hash, source_url, document)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, fin.NewVersion, job.SpecID, now, v.Title, v.Version, v.OpenAPI, v.Format, v.ContentHash, strOrNil(v.SourceURL), v.Document); err != nil {
				return err
			}
			if _, err := tx.exec(`UPDATE openapi_specs SET last_version = ? WHERE id = ?`, fin.NewVersion, job.SpecID); err != nil {
				return err
			}
		}
		_, err = tx.exec(`UPDATE openapi_specs SET processing_state = 'complete', lease_owner = NULL, lease_until = NULL, last_processed_at = ?, updated_at = ?,
 last_error_code = NULL, last_error_message = NULL WHERE id = ?`, now, now, job.SpecID)
		return err
	})
	return fin, err
}

// RequeueInterruptedOpenAPIJobs puts runs left in 'progress' by a
// stopped process back in the queue: this process's own (it is starting,
// so none of them runs) and those whose lease has run out. Called once when
// the processor starts; runs of live replicas are left alone.
func (db *DB) RequeueInterruptedOpenAPIJobs(ctx context.Context) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE openapi_specs SET processing_state = 'pending', lease_owner = NULL, lease_until = NULL
 WHERE processing_state = 'progress' AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)`, db.process, ms(tx.Now))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// ReleaseOpenAPIJob puts a claimed run back in the queue untouched (the
// processor is stopping), unless its lease has passed to another process.
func (db *DB) ReleaseOpenAPIJob(ctx context.Context, job *OpenAPIJob) error {
	return db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE openapi_specs SET processing_state = 'pending', lease_owner = NULL, lease_until = NULL
 WHERE id = ? AND generation = ? AND processing_state = 'progress' AND lease_owner = ?`, job.SpecID, job.Generation, db.process)
		return err
	})
}
