package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// Comments is the discussion of a space or of a change request: comments,
// their replies and emoji reactions.
type Comments interface {
	Comment(ctx context.Context, scope CommentScope, parentID, id string) (Comment, error)
	ListComments(ctx context.Context, scope CommentScope, f CommentFilter, pq PageQuery) (Page[Comment], error)
	FirstReplies(ctx context.Context, scope CommentScope, parentIDs []string, limit int) (map[string]Page[Comment], error)
	PostComment(ctx context.Context, c *Comment) error
	UpdateComment(ctx context.Context, scope CommentScope, parentID, id string, u CommentUpdate) error
	DeleteComment(ctx context.Context, scope CommentScope, parentID, id string) (bool, error)
	Reactions(ctx context.Context, ids []string) (map[string][]Reaction, error)
	PagesByIDs(ctx context.Context, revID string, ids []string) (map[string]ContentPage, error)
}

// CommentScope is where a discussion lives: a space (ChangeRequestID "")
// or one of its change requests.
type CommentScope struct {
	SpaceID         string
	ChangeRequestID string
}

// Comment is a comment (ParentID "") or a reply to one.
type Comment struct {
	ID              string
	Scope           CommentScope
	ParentID        string
	PostedBy        string
	PostedAt        time.Time
	EditedAt        *time.Time
	Body            string // Markdown
	RevisionID      string
	PageID          string
	PageTitle       string
	PagePath        string
	NodeID          string
	TableRecord     string
	TableDefinition string
	Status          string // open | resolved
	ResolvedAt      *time.Time
	ResolvedBy      *string
	Replies         int
}

// Reaction is one user's emoji on a comment or reply.
type Reaction struct {
	Emoji     string
	UserID    string
	ReactedAt time.Time
}

const commentCols = `c.id, c.space_id, c.change_request_id, c.parent_id, c.posted_by, c.posted_at, c.edited_at, c.body, c.revision_id,
 c.page_id, c.page_title, c.page_path, c.node_id, c.table_record, c.table_definition, c.status, c.resolved_at, c.resolved_by, c.replies`

func scanComment(sc interface{ Scan(...any) error }) (Comment, error) {
	var c Comment
	var posted int64
	var edited, resolved sql.NullInt64
	var resolvedBy sql.NullString
	err := sc.Scan(&c.ID, &c.Scope.SpaceID, &c.Scope.ChangeRequestID, &c.ParentID, &c.PostedBy, &posted, &edited, &c.Body, &c.RevisionID,
		&c.PageID, &c.PageTitle, &c.PagePath, &c.NodeID, &c.TableRecord, &c.TableDefinition, &c.Status, &resolved, &resolvedBy, &c.Replies)
	if err != nil {
		return c, notFound(err)
	}
	c.PostedAt = FromMillis(posted)
	c.EditedAt, c.ResolvedAt, c.ResolvedBy = millisPtr(edited), millisPtr(resolved), nullStr(resolvedBy)
	return c, nil
}

func millisPtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := FromMillis(v.Int64)
	return &t
}

// Comment reads a comment (parentID "") or a reply of parentID in scope.
func (db *DB) Comment(ctx context.Context, scope CommentScope, parentID, id string) (Comment, error) {
	return scanComment(db.r().QueryRowContext(ctx, `SELECT `+commentCols+` FROM comments c
 WHERE c.id = ? AND c.space_id = ? AND c.change_request_id = ? AND c.parent_id = ?`, id, scope.SpaceID, scope.ChangeRequestID, parentID))
}

// CommentFilter narrows a list of comments (ParentID "") or of the replies
// of ParentID.
type CommentFilter struct {
	ParentID string
	Asc      bool
	Status   string // open | resolved; "" for all
	PageID   string
	Authors  []string
}

// ListComments lists a scope's comments (or a comment's replies) by time
// posted.
func (db *DB) ListComments(ctx context.Context, scope CommentScope, f CommentFilter, pq PageQuery) (Page[Comment], error) {
	where := ` WHERE c.space_id = ? AND c.change_request_id = ? AND c.parent_id = ?`
	args := []any{scope.SpaceID, scope.ChangeRequestID, f.ParentID}
	if f.Status != "" {
		where += ` AND c.status = ?`
		args = append(args, f.Status)
	}
	if f.PageID != "" {
		where += ` AND c.page_id = ?`
		args = append(args, f.PageID)
	}
	if len(f.Authors) > 0 {
		where += ` AND c.posted_by IN (` + placeholders(len(f.Authors)) + `)`
		args = append(args, anySlice(f.Authors)...)
	}
	spec := listSpec{Select: commentCols, From: `FROM comments c` + where, Args: args, SortCol: "c.posted_at", IDCol: "c.id", Desc: !f.Asc}
	after := ""
	if pq.After != nil {
		after = fmt.Sprintf("%+v", *pq.After)
	}
	key := keptKey("comments", append([]string{scope.SpaceID, scope.ChangeRequestID, f.ParentID, fmt.Sprint(f.Asc), f.Status, f.PageID, after, fmt.Sprint(pq.Limit)}, f.Authors...)...)
	return keptRead(ctx, db, key, func(p Page[Comment]) (int, int) {
		n := 0
		for _, c := range p.Items {
			n += len(c.Body)
		}
		return len(p.Items), n
	}, func() (Page[Comment], error) {
		p, err := runList(ctx, db, spec, pq, func(rows *sql.Rows) (Comment, Cursor, error) {
			c, err := scanComment(rows)
			return c, Cursor{N: c.PostedAt.UnixMilli(), ID: c.ID}, err
		})
		p.Items = slices.Clip(p.Items) // shared: an append by a caller copies
		return p, err
	})
}

// adjustOpenComments keeps the open-comment counter of a scope exact: the
// space's for space comments, the change request's for its comments.
func adjustOpenComments(tx *Tx, scope CommentScope, delta int) error {
	if delta == 0 {
		return nil
	}
	if scope.ChangeRequestID == "" {
		return adjustSpaceCounters(tx, scope.SpaceID, SpaceCounters{Comments: delta})
	}
	_, err := tx.exec(`UPDATE change_requests SET comments = comments + ? WHERE id = ?`, delta, scope.ChangeRequestID)
	return err
}

// PostComment stores a new comment or reply (c.ID and c.PostedAt are set).
func (db *DB) PostComment(ctx context.Context, c *Comment) error {
	c.ID = NewID()
	return db.writeSpace(ctx, c.Scope.SpaceID, func(tx *Tx) error {
		c.PostedAt, c.Status = tx.Now, "open"
		if c.ParentID != "" {
			res, err := tx.exec(`UPDATE comments SET replies = replies + 1 WHERE id = ? AND space_id = ? AND change_request_id = ? AND parent_id = ''`,
				c.ParentID, c.Scope.SpaceID, c.Scope.ChangeRequestID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return ErrNotFound
			}
		}
		if _, err := tx.exec(`INSERT INTO comments (id, space_id, change_request_id, parent_id, posted_by, posted_at, body, revision_id,
 page_id, page_title, page_path, node_id, table_record, table_definition, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.Scope.SpaceID, c.Scope.ChangeRequestID, c.ParentID, c.PostedBy, ms(c.PostedAt), c.Body, c.RevisionID,
			c.PageID, c.PageTitle, c.PagePath, c.NodeID, c.TableRecord, c.TableDefinition, c.Status); err != nil {
			return err
		}
		if c.ParentID == "" {
			return adjustOpenComments(tx, c.Scope, 1)
		}
		return nil
	})
}

// CommentUpdate is a change to a comment or reply by UserID. Resolved
// applies to the thread: the comment itself, or a reply's comment.
type CommentUpdate struct {
	UserID          string
	Body            *string
	Resolved        *bool
	AddReactions    []string
	RemoveReactions []string
}

// UpdateComment applies u in one transaction, keeping the open-comment
// counter exact.
func (db *DB) UpdateComment(ctx context.Context, scope CommentScope, parentID, id string, u CommentUpdate) error {
	return db.writeSpace(ctx, scope.SpaceID, func(tx *Tx) error {
		var exists int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM comments WHERE id = ? AND space_id = ? AND change_request_id = ? AND parent_id = ?`,
			id, scope.SpaceID, scope.ChangeRequestID, parentID).Scan(&exists); err != nil {
			return notFound(err)
		}
		if u.Body != nil {
			if _, err := tx.exec(`UPDATE comments SET body = ?, edited_at = ? WHERE id = ?`, *u.Body, ms(tx.Now), id); err != nil {
				return err
			}
		}
		if u.Resolved != nil {
			thread := id
			if parentID != "" {
				thread = parentID
			}
			if err := resolveThread(tx, scope, thread, *u.Resolved, u.UserID); err != nil {
				return err
			}
		}
		for _, e := range u.AddReactions {
			if _, err := tx.exec(`INSERT INTO comment_reactions (comment_id, emoji, user_id, reacted_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				id, e, u.UserID, ms(tx.Now)); err != nil {
				return err
			}
		}
		for _, e := range u.RemoveReactions {
			if _, err := tx.exec(`DELETE FROM comment_reactions WHERE comment_id = ? AND emoji = ? AND user_id = ?`, id, e, u.UserID); err != nil {
				return err
			}
		}
		return nil
	})
}

func resolveThread(tx *Tx, scope CommentScope, id string, resolved bool, userID string) error {
	from, to := "open", "resolved"
	var at, by any = ms(tx.Now), userID
	delta := -1
	if !resolved {
		from, to, at, by, delta = "resolved", "open", nil, nil, 1
	}
	res, err := tx.exec(`UPDATE comments SET status = ?, resolved_at = ?, resolved_by = ? WHERE id = ? AND status = ?`, to, at, by, id, from)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // already in that state
	}
	return adjustOpenComments(tx, scope, delta)
}

// DeleteComment deletes a comment with its replies, or one reply; false
// when there was none.
func (db *DB) DeleteComment(ctx context.Context, scope CommentScope, parentID, id string) (bool, error) {
	deleted := false
	err := db.writeSpace(ctx, scope.SpaceID, func(tx *Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM comments WHERE id = ? AND space_id = ? AND change_request_id = ? AND parent_id = ?`,
			id, scope.SpaceID, scope.ChangeRequestID, parentID).Scan(&status)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		deleted = true
		if parentID != "" {
			if _, err := tx.exec(`UPDATE comments SET replies = replies - 1 WHERE id = ?`, parentID); err != nil {
				return err
			}
		} else {
			if _, err := tx.exec(`DELETE FROM comments WHERE parent_id = ? AND space_id = ?`, id, scope.SpaceID); err != nil {
				return err
			}
			if status == "open" {
				if err := adjustOpenComments(tx, scope, -1); err != nil {
					return err
				}
			}
		}
		_, err = tx.exec(`DELETE FROM comments WHERE id = ?`, id)
		return err
	})
	return deleted, err
}

// Reactions reads the reactions of comments and replies in one query,
// each comment's in the order they were first given.
func (db *DB) Reactions(ctx context.Context, ids []string) (map[string][]Reaction, error) {
	if len(ids) == 0 {
		return map[string][]Reaction{}, nil
	}
	return keptRead(ctx, db, keptKey("reactions", ids...), rowsOf(func(m map[string][]Reaction) int {
		n := 0
		for _, rs := range m {
			n += len(rs)
		}
		return n
	}), func() (map[string][]Reaction, error) { return db.reactions(ctx, ids) })
}

func (db *DB) reactions(ctx context.Context, ids []string) (map[string][]Reaction, error) {
	out := map[string][]Reaction{}
	rows, err := db.read.QueryContext(ctx, `SELECT comment_id, emoji, user_id, reacted_at FROM comment_reactions
 WHERE comment_id IN (`+placeholders(len(ids))+`) ORDER BY comment_id, reacted_at, emoji, user_id`, anySlice(ids)...) // variable arity: not cached
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r Reaction
		var at int64
		if err := rows.Scan(&id, &r.Emoji, &r.UserID, &at); err != nil {
			return nil, err
		}
		r.ReactedAt = FromMillis(at)
		out[id] = append(out[id], r)
	}
	return out, rows.Err()
}

// distinct is ids without repeats (a sorted copy): a page of comments by a
// few people names each of them many times, and each repeat would be one
// more placeholder of a statement prepared for its arity.
func distinct(ids []string) []string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// commentersSQL selects the users who posted in a scope (comments and
// replies); the members list filters on it.
const commentersSQL = `SELECT x.posted_by FROM comments x WHERE x.space_id = ? AND x.change_request_id = ?`

// PagesByIDs reads the pages of a revision with the given ids (without
// bodies) in one query: the targets of a page of comments. Each id is
// asked once (comments on one page name it once each).
func (db *DB) PagesByIDs(ctx context.Context, revID string, ids []string) (map[string]ContentPage, error) {
	out := map[string]ContentPage{}
	if len(ids) == 0 {
		return out, nil
	}
	ids = distinct(ids)
	return keptRead(ctx, db, keptKey("pages", append([]string{revID}, ids...)...), rowsOf(func(m map[string]ContentPage) int { return len(m) }), func() (map[string]ContentPage, error) {
		pages, err := revisionPages(ctx, db.read, revID, "", "x.page_id IN ("+placeholders(len(ids))+")", anySlice(ids)...) // variable arity: not cached
		for _, p := range pages {
			out[p.ID] = p
		}
		return out, err
	})
}

// MaxReplyThreads bounds the threads one FirstReplies reads (a page of
// comments is at most 1,000).
const MaxReplyThreads = 1000

// FirstReplies reads the first page (oldest first, limit replies) of each
// thread of parentIDs in scope, in one statement whatever their number: a
// page of comments shows the start of every thread without a query per
// comment. Each page's Count is its thread's total and Next the cursor
// ListComments takes for the rest (the same list); a thread without
// replies has no entry.
func (db *DB) FirstReplies(ctx context.Context, scope CommentScope, parentIDs []string, limit int) (map[string]Page[Comment], error) {
	out := map[string]Page[Comment]{}
	if len(parentIDs) == 0 {
		return out, nil
	}
	if len(parentIDs) > MaxReplyThreads {
		return nil, fmt.Errorf("storage: %d reply threads at once, more than %d", len(parentIDs), MaxReplyThreads)
	}
	tag := listSpec{From: "FROM comments c", SortCol: "c.posted_at", IDCol: "c.id"}.tag() // ListComments' replies list
	q := `SELECT ` + commentCols + `, c.total FROM (SELECT ` + commentCols + `,
 ROW_NUMBER() OVER (PARTITION BY c.parent_id ORDER BY c.posted_at, c.id) AS rn, COUNT(*) OVER (PARTITION BY c.parent_id) AS total
 FROM comments c WHERE c.space_id = ? AND c.change_request_id = ? AND c.parent_id IN (` + placeholders(len(parentIDs)) + `)) c
 WHERE c.rn <= ? ORDER BY c.parent_id, c.rn`
	args := append([]any{scope.SpaceID, scope.ChangeRequestID}, anySlice(parentIDs)...)
	args = append(args, limit+1)
	rows, err := db.r().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var total int
		c, err := scanComment(withExtra{rows, &total})
		if err != nil {
			return nil, err
		}
		p := out[c.ParentID]
		p.Count = total
		switch {
		case len(p.Items) < limit:
			p.Items = append(p.Items, c)
		case p.Next == nil && limit == 0:
			p.Next = &Cursor{Start: true, List: tag}
		case p.Next == nil:
			last := p.Items[len(p.Items)-1]
			p.Next = &Cursor{N: last.PostedAt.UnixMilli(), ID: last.ID, List: tag}
		}
		out[c.ParentID] = p
	}
	return out, rows.Err()
}

// withExtra scans a row's columns then one more into extra.
type withExtra struct {
	rows  *sql.Rows
	extra any
}

func (w withExtra) Scan(dest ...any) error { return w.rows.Scan(append(dest, w.extra)...) }
