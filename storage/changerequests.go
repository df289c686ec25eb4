package storage

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"
)

// ChangeRequests is change requests: branches of a space's content that
// are updated from the main content and merged into it.
type ChangeRequests interface {
	ChangeRequest(ctx context.Context, spaceID, ref string) (ChangeRequest, error)
	// ChangeRequestSpace is the space of the change request with that id
	// (ErrNotFound when there is none): callers tell another space's
	// change request (404) from an unknown one.
	ChangeRequestSpace(ctx context.Context, id string) (string, error)
	ListChangeRequests(ctx context.Context, spaceID string, f ChangeRequestFilter, pq PageQuery) (Page[ChangeRequest], error)
	CreateChangeRequest(ctx context.Context, id, spaceID, userID, subject string, agentTaskID *string) (ChangeRequest, error)
	UpdateChangeRequest(ctx context.Context, spaceID, id string, subject, status *string) error
	MergeChangeRequest(ctx context.Context, m MergeChange) (string, error)
	RevisionBodies(ctx context.Context, revID string) (map[string]string, error)
	RequestReviewers(ctx context.Context, crID, requestedBy string, users []string, subject *string) ([]ReviewRequest, error)
	ListReviewRequests(ctx context.Context, crID string, pq PageQuery) (Page[ReviewRequest], error)
	RemoveReviewRequest(ctx context.Context, crID, userID string) (bool, error)
	SubmitReview(ctx context.Context, r *Review) error
	ListReviews(ctx context.Context, crID string, pq PageQuery) (Page[Review], error)
	Review(ctx context.Context, crID, id string) (Review, error)
	Contributors(ctx context.Context, crID string) ([]Contributor, error)
}

// ChangeRequest is a branch of a space's content.
type ChangeRequest struct {
	ID                     string
	SpaceID                string
	Number                 int
	Status                 string
	Subject                string
	AgentTaskID            *string
	CreatedBy              string
	CreatedAt, UpdatedAt   time.Time
	Revision               string // head of the branch
	RevisionInitial        string
	RevisionBase           string // last revision shared with the main content
	RevisionMergedAncestor *string
	RevisionMerged         *string
	Comments               int
	SpaceRevision          string // the space's active revision, for outdated
}

// Outdated: the main content moved since the branch last shared it.
func (c ChangeRequest) Outdated() bool {
	return c.Status != "merged" && c.SpaceRevision != c.RevisionBase
}

const changeRequestCols = `cr.id, cr.space_id, cr.number, cr.status, cr.subject, cr.agent_task_id, cr.created_by, cr.created_at, cr.updated_at,
 cr.revision_id, cr.revision_initial, cr.revision_base, cr.revision_merged_ancestor, cr.revision_merged, cr.comments, s.revision_id`

func scanChangeRequest(sc interface{ Scan(...any) error }) (ChangeRequest, error) {
	var c ChangeRequest
	var agent, ancestor, merged sql.NullString
	var created, updated int64
	err := sc.Scan(&c.ID, &c.SpaceID, &c.Number, &c.Status, &c.Subject, &agent, &c.CreatedBy, &created, &updated,
		&c.Revision, &c.RevisionInitial, &c.RevisionBase, &ancestor, &merged, &c.Comments, &c.SpaceRevision)
	if err != nil {
		return c, notFound(err)
	}
	c.AgentTaskID, c.RevisionMergedAncestor, c.RevisionMerged = nullStr(agent), nullStr(ancestor), nullStr(merged)
	c.CreatedAt, c.UpdatedAt = FromMillis(created), FromMillis(updated)
	return c, nil
}

// ChangeRequest reads a change request of spaceID by its id or its number.
func (db *DB) ChangeRequest(ctx context.Context, spaceID, ref string) (ChangeRequest, error) {
	return changeRequest(ctx, db.r(), spaceID, ref)
}

func (db *DB) ChangeRequestSpace(ctx context.Context, id string) (string, error) {
	var space string
	err := db.r().QueryRowContext(ctx, `SELECT space_id FROM change_requests WHERE id = ?`, id).Scan(&space)
	return space, notFound(err)
}

func changeRequest(ctx context.Context, q queryer, spaceID, ref string) (ChangeRequest, error) {
	from := ` FROM change_requests cr JOIN spaces s ON s.id = cr.space_id WHERE cr.space_id = ? AND `
	if n, err := strconv.Atoi(ref); err == nil && n > 0 && strconv.Itoa(n) == ref {
		return scanChangeRequest(q.QueryRowContext(ctx, `SELECT `+changeRequestCols+from+`cr.number = ?`, spaceID, n))
	}
	return scanChangeRequest(q.QueryRowContext(ctx, `SELECT `+changeRequestCols+from+`cr.id = ?`, spaceID, ref))
}

// ChangeRequestFilter narrows the list: one status, and only change
// requests a user contributed to.
type ChangeRequestFilter struct {
	Status      string
	Contributor string
}

// ListChangeRequests lists a space's change requests, newest (highest
// number) first.
func (db *DB) ListChangeRequests(ctx context.Context, spaceID string, f ChangeRequestFilter, pq PageQuery) (Page[ChangeRequest], error) {
	where := ` WHERE cr.space_id = ? AND cr.status = ?`
	args := []any{spaceID, f.Status}
	if f.Contributor != "" {
		where += ` AND EXISTS (SELECT 1 FROM change_request_contributors c WHERE c.change_request_id = cr.id AND c.user_id = ?)`
		args = append(args, f.Contributor)
	}
	spec := listSpec{Select: changeRequestCols, From: `FROM change_requests cr JOIN spaces s ON s.id = cr.space_id` + where, Args: args,
		CountFrom: `FROM change_requests cr` + where, CountArgs: args, SortCol: "cr.number", IDCol: "cr.id", Desc: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (ChangeRequest, Cursor, error) {
		c, err := scanChangeRequest(rows)
		return c, Cursor{N: int64(c.Number), ID: c.ID}, err
	})
}

// statusCounters is what a change request in status adds to its space's
// counters.
func statusCounters(status string) SpaceCounters {
	switch status {
	case "open":
		return SpaceCounters{ChangeRequestsOpen: 1}
	case "draft":
		return SpaceCounters{ChangeRequestsDraft: 1}
	}
	return SpaceCounters{}
}

func (a SpaceCounters) minus(b SpaceCounters) SpaceCounters {
	return SpaceCounters{a.Comments - b.Comments, a.ChangeRequests - b.ChangeRequests,
		a.ChangeRequestsOpen - b.ChangeRequestsOpen, a.ChangeRequestsDraft - b.ChangeRequestsDraft}
}

// CreateChangeRequest starts a branch at the space's active revision. The
// number is the next one of the space, taken inside the write transaction
// (one writer at a time per organization: scope.go), so concurrent
// creations get distinct numbers.
// An empty id takes a new one (the caller may choose it to describe the
// change before the write: Recording).
func (db *DB) CreateChangeRequest(ctx context.Context, id, spaceID, userID, subject string, agentTaskID *string) (ChangeRequest, error) {
	var out ChangeRequest
	if id == "" {
		id = NewID()
	}
	err := db.writeSpace(ctx, spaceID, func(tx *Tx) error {
		head, err := spaceHead(ctx, tx, spaceID)
		if err != nil {
			return err
		}
		var number int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(number), 0) + 1 FROM change_requests WHERE space_id = ?`, spaceID).Scan(&number); err != nil {
			return err
		}
		const status = "draft"
		if _, err := tx.exec(`INSERT INTO change_requests (id, space_id, number, status, subject, agent_task_id, created_by, created_at, updated_at,
 revision_id, revision_initial, revision_base) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, spaceID, number, status, subject, agentTaskID, userID, ms(tx.Now), ms(tx.Now), head.Revision, head.Revision, head.Revision); err != nil {
			return err
		}
		if err := addContributor(tx, id, userID, false); err != nil {
			return err
		}
		c := statusCounters(status)
		c.ChangeRequests = 1
		if err := adjustSpaceCounters(tx, spaceID, c); err != nil {
			return err
		}
		out, err = changeRequest(ctx, tx, spaceID, id)
		return err
	})
	return out, err
}

// addContributor records userID among the change request's contributors;
// edit counts one more edit of its content by them.
func addContributor(tx *Tx, crID, userID string, edit bool) error {
	if userID == "" {
		return nil
	}
	n := 0
	if edit {
		n = 1
	}
	_, err := tx.exec(`INSERT INTO change_request_contributors (change_request_id, user_id, edits, updated_at) VALUES (?, ?, ?, ?)
 ON CONFLICT (change_request_id, user_id) DO UPDATE SET edits = change_request_contributors.edits + excluded.edits, updated_at = excluded.updated_at`,
		crID, userID, n, ms(tx.Now))
	return err
}

// moveChangeRequestHead points a change request at its new head revision
// (which makes the reviews of earlier heads stale: their revision differs).
func moveChangeRequestHead(tx *Tx, crID, revID, author string) error {
	if _, err := tx.exec(`UPDATE change_requests SET revision_id = ?, updated_at = ? WHERE id = ?`, revID, ms(tx.Now), crID); err != nil {
		return err
	}
	return addContributor(tx, crID, author, true)
}

// UpdateChangeRequest changes the subject and the status (never to or from
// merged: the caller checks), keeping the space's counters exact.
func (db *DB) UpdateChangeRequest(ctx context.Context, spaceID, id string, subject, status *string) error {
	return db.writeSpace(ctx, spaceID, func(tx *Tx) error {
		var old string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM change_requests WHERE id = ? AND space_id = ?`, id, spaceID).Scan(&old); err != nil {
			return notFound(err)
		}
		set := []string{"updated_at = ?"}
		args := []any{ms(tx.Now)}
		if subject != nil {
			set, args = append(set, "subject = ?"), append(args, *subject)
		}
		if status != nil && *status != old {
			if old == "merged" {
				return ErrChangeRequestClosed
			}
			set, args = append(set, "status = ?"), append(args, *status)
			if err := adjustSpaceCounters(tx, spaceID, statusCounters(*status).minus(statusCounters(old))); err != nil {
				return err
			}
		}
		_, err := tx.exec(`UPDATE change_requests SET `+strings.Join(set, ", ")+` WHERE id = ?`, append(args, id)...)
		return err
	})
}

// MergeChange is a three-way merge between a change request and the main
// content. Update brings the main content into the branch (a new head
// whose parents are the branch and main); otherwise the branch is merged
// into the main content (a new active revision whose parents are main and
// the branch). Merge combines the trees (base is their last common
// revision) and returns an error when they cannot be combined (nothing is
// written then).
type MergeChange struct {
	SpaceID       string
	ChangeRequest string
	Update        bool
	Analyzer      Analyzer
	Merge         func(base, main, branch *Tree) (*Tree, error)
	// Revision is the id of the revision a merge writes ("" takes a new one).
	Revision string
	// WholeTree merges the whole trees even where the change alone would
	// do (deltaMerge): the reference the delta is tested against.
	WholeTree bool
}

// MergeChangeRequest runs m in one write transaction and returns the new
// revision (the branch's head, unchanged, when an update finds nothing new
// in the main content).
func (db *DB) MergeChangeRequest(ctx context.Context, m MergeChange) (string, error) {
	var rev string
	// A batched import of the space publishing: wait, then again.
	write := func(fn func(*Tx) error) error {
		return db.retryClosing(ctx, m.SpaceID, func() error { return db.writeSpace(ctx, m.SpaceID, fn) })
	}
	err := write(func(tx *Tx) error {
		cr, err := changeRequest(ctx, tx, m.SpaceID, m.ChangeRequest)
		if err != nil {
			return err
		}
		if cr.Status == "merged" || cr.Status == "archived" {
			return ErrChangeRequestClosed
		}
		main := cr.SpaceRevision
		if m.Update && main == cr.RevisionBase {
			rev = cr.Revision
			return nil
		}
		rev = m.Revision
		if rev == "" {
			rev = NewID()
		}
		if !m.WholeTree {
			done, err := deltaMerge(tx, m, cr, main, rev)
			if err != nil {
				return err
			}
			if done {
				return finishMerge(tx, m, cr, main, rev)
			}
		}
		if r, _ := ctx.Value(pageReadsKey{}).(*PageReads); r != nil {
			r.WholeMerges++
		}
		base, err := loadTree(ctx, tx, cr.RevisionBase, false)
		if err != nil {
			return err
		}
		ours, err := loadTree(ctx, tx, main, false)
		if err != nil {
			return err
		}
		theirs, err := loadTree(ctx, tx, cr.Revision, false)
		if err != nil {
			return err
		}
		if err := loadChangedBodies(tx, base, ours, theirs); err != nil {
			return err
		}
		merged, err := m.Merge(base, ours, theirs)
		if err != nil {
			return err
		}
		if m.Update {
			if err := writeRevision(tx, newRevision{ID: rev, SpaceID: m.SpaceID, Parents: []string{cr.Revision, main}, From: main, Type: "update", Analyzer: m.Analyzer}, merged); err != nil {
				return err
			}
		} else if err := writeRevision(tx, newRevision{ID: rev, SpaceID: m.SpaceID, Parents: []string{main, cr.Revision}, Type: "merge",
			MergedFrom: cr.ID, Activate: true, Analyzer: m.Analyzer}, merged); err != nil {
			return err
		}
		return finishMerge(tx, m, cr, main, rev)
	})
	return rev, err
}

// finishMerge records a merge's (or update's) new revision rev in the
// change request (and its space's counters).
func finishMerge(tx *Tx, m MergeChange, cr ChangeRequest, main, rev string) error {
	if m.Update {
		_, err := tx.exec(`UPDATE change_requests SET revision_id = ?, revision_base = ?, revision_merged_ancestor = ?, updated_at = ? WHERE id = ?`,
			rev, main, main, ms(tx.Now), cr.ID)
		return err
	}
	if _, err := tx.exec(`UPDATE change_requests SET status = 'merged', revision_merged = ?, updated_at = ? WHERE id = ?`, rev, ms(tx.Now), cr.ID); err != nil {
		return err
	}
	return adjustSpaceCounters(tx, m.SpaceID, statusCounters("merged").minus(statusCounters(cr.Status)))
}

// loadChangedBodies reads the bodies of the pages whose version differs
// between the trees (the only ones a merge compares line by line), in
// batches, so a merge reads bodies in proportion to the change.
func loadChangedBodies(tx *Tx, trees ...*Tree) error {
	versions := map[string][]*TreePage{}
	byID := map[string][]*TreePage{}
	for _, t := range trees {
		t.Walk(func(p, _ *TreePage) bool {
			byID[p.ID] = append(byID[p.ID], p)
			return true
		})
	}
	for _, pages := range byID {
		same := len(pages) == len(trees)
		for _, p := range pages[1:] {
			same = same && p.Version == pages[0].Version
		}
		if same {
			continue
		}
		for _, p := range pages {
			if p.Type == "document" {
				versions[p.Version] = append(versions[p.Version], p)
			}
		}
	}
	hashes := make([]string, 0, len(versions))
	for h := range versions {
		hashes = append(hashes, h)
	}
	const per = 500
	for start := 0; start < len(hashes); start += per {
		chunk := hashes[start:min(start+per, len(hashes))]
		args := make([]any, len(chunk))
		for i, h := range chunk {
			args[i] = h
		}
		rows, err := tx.QueryContext(tx.ctx, `SELECT hash, markdown FROM page_versions WHERE hash IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var h, md string
			if err := rows.Scan(&h, &md); err != nil {
				rows.Close()
				return err
			}
			for _, p := range versions[h] {
				p.Markdown, p.bodySet = md, true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// RevisionBodies reads the Markdown body of every document page of a
// revision in one query (PDF exports).
func (db *DB) RevisionBodies(ctx context.Context, revID string) (map[string]string, error) {
	rr, err := revisionRowsOf(ctx, db.r(), revID)
	if err != nil {
		return nil, err
	}
	from, args := rr.pages("")
	rows, err := db.r().QueryContext(ctx, `SELECT rp.page_id, v.markdown `+from, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, md string
		if err := rows.Scan(&id, &md); err != nil {
			return nil, err
		}
		out[id] = md
	}
	return out, rows.Err()
}
