package storage

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// User is a person who holds API tokens and memberships.
type User struct {
	ID          string
	Email       string
	DisplayName string
	PhotoURL    *string
	SignedIn    bool
	CreatedAt   time.Time
}

const userCols = `u.id, u.email, u.display_name, u.photo_url, u.signed_in, u.created_at`

func scanUser(sc interface{ Scan(...any) error }, extra ...any) (User, error) {
	var u User
	var photo sql.NullString
	var created int64
	dest := append([]any{&u.ID, &u.Email, &u.DisplayName, &photo, &u.SignedIn, &created}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return u, notFound(err)
	}
	u.PhotoURL = nullStr(photo)
	u.CreatedAt = FromMillis(created)
	return u, nil
}

func (db *DB) UserByID(ctx context.Context, id string) (User, error) {
	return scanUser(db.r().QueryRowContext(ctx, `SELECT `+userCols+` FROM users u WHERE u.id = ?`, id))
}

func (db *DB) UserByEmail(ctx context.Context, email string) (User, error) {
	return scanUser(db.r().QueryRowContext(ctx, `SELECT `+userCols+` FROM users u WHERE u.email = ?`, strings.ToLower(email)))
}

// UsersByIDs reads many users in one query (no query per row).
func (db *DB) UsersByIDs(ctx context.Context, ids []string) (map[string]User, error) {
	out := map[string]User{}
	if len(ids) == 0 {
		return out, nil
	}
	ids = distinct(ids)
	return keptRead(ctx, db, keptKey("users", ids...), rowsOf(func(m map[string]User) int { return len(m) }), func() (map[string]User, error) { return db.usersByIDs(ctx, ids) })
}

func (db *DB) usersByIDs(ctx context.Context, ids []string) (map[string]User, error) {
	out := make(map[string]User, len(ids))
	q := `SELECT ` + userCols + ` FROM users u WHERE u.id IN (` + placeholders(len(ids)) + `)`
	rows, err := db.read.QueryContext(ctx, q, anySlice(ids)...) // variable arity: not cached
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out[u.ID] = u
	}
	return out, rows.Err()
}

// insertUser creates a user inside tx.
func insertUser(tx *Tx, u *User) error {
	u.ID = NewID()
	u.Email = strings.ToLower(u.Email)
	u.CreatedAt = tx.Now
	_, err := tx.exec(`INSERT INTO users (id, email, display_name, photo_url, signed_in, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		u.ID, u.Email, u.DisplayName, strOrNil(u.PhotoURL), boolInt(u.SignedIn), ms(u.CreatedAt))
	return err
}

// userByEmailTx finds a user by e-mail inside tx.
func userByEmailTx(tx *Tx, email string) (User, error) {
	return scanUser(tx.QueryRowContext(tx.ctx, `SELECT `+userCols+` FROM users u WHERE u.email = ?`, strings.ToLower(email)))
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// inListMax bounds the items of one IN (...) list (SQLite's and
// PostgreSQL's limits on a statement's parameters are far above it).
const inListMax = 500

// inChunks calls fn with items in consecutive chunks of at most inListMax,
// one statement's IN list each.
func inChunks[T any](items []T, fn func(chunk []T) error) error {
	for start := 0; start < len(items); start += inListMax {
		if err := fn(items[start:min(start+inListMax, len(items))]); err != nil {
			return err
		}
	}
	return nil
}

func anySlice[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// SharesOrganization tells whether two users are members of a common
// organization (users may only see users they share one with).
func (db *DB) SharesOrganization(ctx context.Context, a, b string) (bool, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM members x JOIN members y ON y.organization_id = x.organization_id
 WHERE x.user_id = ? AND y.user_id = ?`, a, b).Scan(&n)
	return n > 0, err
}

// UpdateUser changes a user's display name and photo URL (nil: unchanged).
func (db *DB) UpdateUser(ctx context.Context, id string, displayName, photoURL *string) error {
	return db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE users SET display_name = COALESCE(?, display_name), photo_url = COALESCE(?, photo_url) WHERE id = ?`,
			strOrNil(displayName), strOrNil(photoURL), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return notFound(sql.ErrNoRows)
		}
		return nil
	})
}
