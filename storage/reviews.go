package storage

import (
	"context"
	"database/sql"
	"time"
)

// Review of change requests: reviewers asked for (one request per
// reviewer, renewed when asked again), reviews given (one per reviewer: a
// new review replaces the previous one and fulfils the reviewer's request),
// and contributors with their number of edits. A review is made against the
// change request's head; an edit moves the head, so a review whose
// revision is not the head is stale.

// ReviewRequest is a reviewer asked to review a change request.
type ReviewRequest struct {
	ChangeRequestID string
	UserID          string
	RequestedBy     string
	Revision        string
	CreatedAt       time.Time
}

// Review is a reviewer's verdict on a change request.
type Review struct {
	ID              string
	ChangeRequestID string
	Reviewer        string
	RequestedBy     *string
	Status          string // approved | changes-requested
	Revision        string
	CommentID       *string
	CreatedAt       time.Time
}

// Contributor is a user who created or edited a change request.
type Contributor struct {
	UserID    string
	Edits     int
	UpdatedAt time.Time
}

// RequestReviewers asks users to review a change request at its current
// head (asking again renews the request), and sets the subject when one is
// given; it returns the requests in the order of users.
func (db *DB) RequestReviewers(ctx context.Context, crID, requestedBy string, users []string, subject *string) ([]ReviewRequest, error) {
	var out []ReviewRequest
	err := db.writeOwned(ctx, changeRequestOrgSQL, crID, func(tx *Tx) error {
		out = out[:0]
		var head string
		if err := tx.QueryRowContext(ctx, `SELECT revision_id FROM change_requests WHERE id = ?`, crID).Scan(&head); err != nil {
			return notFound(err)
		}
		if subject != nil {
			if _, err := tx.exec(`UPDATE change_requests SET subject = ?, updated_at = ? WHERE id = ?`, *subject, ms(tx.Now), crID); err != nil {
				return err
			}
		}
		for _, u := range users {
			if _, err := tx.exec(`INSERT INTO change_request_reviewers (change_request_id, user_id, requested_by, revision_id, created_at) VALUES (?, ?, ?, ?, ?)
 ON CONFLICT (change_request_id, user_id) DO UPDATE SET requested_by = excluded.requested_by, revision_id = excluded.revision_id, created_at = excluded.created_at`,
				crID, u, requestedBy, head, ms(tx.Now)); err != nil {
				return err
			}
			out = append(out, ReviewRequest{ChangeRequestID: crID, UserID: u, RequestedBy: requestedBy, Revision: head, CreatedAt: tx.Now})
		}
		return nil
	})
	return out, err
}

// ListReviewRequests pages through a change request's pending review
// requests, oldest first.
func (db *DB) ListReviewRequests(ctx context.Context, crID string, pq PageQuery) (Page[ReviewRequest], error) {
	spec := listSpec{Select: `change_request_id, user_id, requested_by, revision_id, created_at`,
		From: `FROM change_request_reviewers WHERE change_request_id = ?`, Args: []any{crID}, SortCol: "created_at", IDCol: "user_id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (ReviewRequest, Cursor, error) {
		var r ReviewRequest
		var created int64
		err := rows.Scan(&r.ChangeRequestID, &r.UserID, &r.RequestedBy, &r.Revision, &created)
		r.CreatedAt = FromMillis(created)
		return r, Cursor{N: created, ID: r.UserID}, err
	})
}

// RemoveReviewRequest withdraws a reviewer's request; false when there was none.
func (db *DB) RemoveReviewRequest(ctx context.Context, crID, userID string) (bool, error) {
	removed := false
	err := db.writeOwned(ctx, changeRequestOrgSQL, crID, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM change_request_reviewers WHERE change_request_id = ? AND user_id = ?`, crID, userID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		removed = n > 0
		if !removed {
			tx.unchanged()
		}
		return err
	})
	return removed, err
}

// SubmitReview records a review against the change request's current head
// (filled in r.Revision), replacing the reviewer's previous review and
// fulfilling their request (whose requester becomes r.RequestedBy).
func (db *DB) SubmitReview(ctx context.Context, r *Review) error {
	return db.writeOwned(ctx, changeRequestOrgSQL, r.ChangeRequestID, func(tx *Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT revision_id FROM change_requests WHERE id = ?`, r.ChangeRequestID).Scan(&r.Revision); err != nil {
			return notFound(err)
		}
		var by sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT requested_by FROM change_request_reviewers WHERE change_request_id = ? AND user_id = ?`, r.ChangeRequestID, r.Reviewer).Scan(&by)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		r.RequestedBy, r.CreatedAt = nullStr(by), tx.Now
		for _, q := range []string{
			`DELETE FROM change_request_reviewers WHERE change_request_id = ? AND user_id = ?`,
			`DELETE FROM change_request_reviews WHERE change_request_id = ? AND reviewer = ?`,
		} {
			if _, err := tx.exec(q, r.ChangeRequestID, r.Reviewer); err != nil {
				return err
			}
		}
		_, err = tx.exec(`INSERT INTO change_request_reviews (id, change_request_id, reviewer, requested_by, status, revision_id, comment_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.ChangeRequestID, r.Reviewer, r.RequestedBy, r.Status, r.Revision, r.CommentID, ms(r.CreatedAt))
		return err
	})
}

// ListReviews pages through the reviews of a change request (each
// reviewer's latest), oldest first.
func (db *DB) ListReviews(ctx context.Context, crID string, pq PageQuery) (Page[Review], error) {
	spec := listSpec{Select: `id, change_request_id, reviewer, requested_by, status, revision_id, comment_id, created_at`,
		From: `FROM change_request_reviews WHERE change_request_id = ?`, Args: []any{crID}, SortCol: "created_at", IDCol: "id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Review, Cursor, error) {
		var r Review
		var by, comment sql.NullString
		var created int64
		err := rows.Scan(&r.ID, &r.ChangeRequestID, &r.Reviewer, &by, &r.Status, &r.Revision, &comment, &created)
		r.RequestedBy, r.CommentID, r.CreatedAt = nullStr(by), nullStr(comment), FromMillis(created)
		return r, Cursor{N: created, ID: r.ID}, err
	})
}

// Review is one review of a change request (ErrNotFound: none, or
// replaced by its reviewer's later one).
func (db *DB) Review(ctx context.Context, crID, id string) (Review, error) {
	var r Review
	var by, comment sql.NullString
	var created int64
	err := db.r().QueryRowContext(ctx, `SELECT id, change_request_id, reviewer, requested_by, status, revision_id, comment_id, created_at
 FROM change_request_reviews WHERE change_request_id = ? AND id = ?`, crID, id).Scan(&r.ID, &r.ChangeRequestID, &r.Reviewer, &by, &r.Status, &r.Revision, &comment, &created)
	r.RequestedBy, r.CommentID, r.CreatedAt = nullStr(by), nullStr(comment), FromMillis(created)
	return r, notFound(err)
}

// Contributors lists who created or edited a change request, most recent
// contribution first. The list is bounded by the people who edited it.
func (db *DB) Contributors(ctx context.Context, crID string) ([]Contributor, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT user_id, edits, updated_at FROM change_request_contributors WHERE change_request_id = ? ORDER BY updated_at DESC, user_id`, crID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Contributor
	for rows.Next() {
		var c Contributor
		var updated int64
		if err := rows.Scan(&c.UserID, &c.Edits, &updated); err != nil {
			return nil, err
		}
		c.UpdatedAt = FromMillis(updated)
		out = append(out, c)
	}
	return out, rows.Err()
}

func init() {
	// A member who leaves is no longer asked to review anything there.
	memberRemovalHooks = append(memberRemovalHooks, func(tx *Tx, orgID, userID string) error {
		_, err := tx.exec(`DELETE FROM change_request_reviewers WHERE user_id = ? AND change_request_id IN
 (SELECT cr.id FROM change_requests cr JOIN spaces s ON s.id = cr.space_id WHERE s.organization_id = ?)`, userID, orgID)
		return err
	})
}
