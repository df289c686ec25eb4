package storage

import (
	"context"
	"database/sql"
	"time"
)

// Token is a stored API token: only the SHA-256 of its secret is kept.
type Token struct {
	ID             string
	UserID         string
	Hash           string
	Kind           string // api | session | installation
	OrganizationID *string
	CreatedAt      time.Time
	ExpiresAt      *time.Time
	// Label names the token in its user's list (defaults after its kind).
	Label string
	// ReadOnly tokens may read what their user may, and write nothing.
	ReadOnly   bool
	LastUsedAt *time.Time
}

// PersonalTokenKinds are the kinds a user sees and manages in their token
// list: their own API tokens and those SAML sign-ins minted for them.
// Installation tokens belong to an installation and are managed there.
var PersonalTokenKinds = []string{"api", "session"}

const tokenCols = `id, user_id, hash, kind, organization_id, created_at, expires_at, label, read_only, last_used_at`

func scanToken(row interface{ Scan(...any) error }) (Token, error) {
	var t Token
	var org sql.NullString
	var created int64
	var exp, used sql.NullInt64
	err := row.Scan(&t.ID, &t.UserID, &t.Hash, &t.Kind, &org, &created, &exp, &t.Label, &t.ReadOnly, &used)
	t.OrganizationID = nullStr(org)
	t.CreatedAt = FromMillis(created)
	t.ExpiresAt = nullMillis(exp)
	t.LastUsedAt = nullMillis(used)
	return t, err
}

// TokenByHash finds the token whose secret hashes to hash.
func (db *DB) TokenByHash(ctx context.Context, hash string) (Token, error) {
	t, err := scanToken(db.r().QueryRowContext(ctx, `SELECT `+tokenCols+` FROM tokens WHERE hash = ?`, hash))
	return t, notFound(err)
}

const tokenChangesSQL = `SELECT n FROM token_changes WHERE id = 1`

// TokenChanges reads the token counter (a prepared primary-key read): it
// moves whenever a token is deleted or changes what it grants, in this
// process or another one on the same file (see migration 0012).
func (db *DB) TokenChanges(ctx context.Context) (int64, error) {
	if s := snapshotFor(ctx, db.r()); s != nil {
		return s.tokens, nil
	}
	var n int64
	err := db.r().QueryRowContext(ctx, tokenChangesSQL).Scan(&n)
	return n, err
}

// CreateToken stores a token for an existing user.
func (db *DB) CreateToken(ctx context.Context, t *Token) error {
	return db.Write(ctx, func(tx *Tx) error { return insertToken(tx, t) })
}

// DeleteToken revokes a token; it reports whether one was deleted.
func (db *DB) DeleteToken(ctx context.Context, id string) (bool, error) {
	return db.deleteTokens(ctx, `DELETE FROM tokens WHERE id = ?`, id)
}

// DeleteUserToken revokes one of userID's personal tokens (PersonalTokenKinds);
// another user's token, or an installation's, counts as not existing.
func (db *DB) DeleteUserToken(ctx context.Context, userID, id string) (bool, error) {
	return db.deleteTokens(ctx, `DELETE FROM tokens WHERE id = ? AND user_id = ? AND kind IN ('api', 'session')`, id, userID)
}

func (db *DB) deleteTokens(ctx context.Context, query string, args ...any) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		if n == 0 {
			tx.unchanged()
		}
		return err
	})
	return n > 0, err
}

// ListUserTokens lists userID's personal tokens, newest first.
func (db *DB) ListUserTokens(ctx context.Context, userID string, pq PageQuery) (Page[Token], error) {
	spec := listSpec{
		Select:  tokenCols,
		From:    `FROM tokens WHERE user_id = ? AND kind IN ('api', 'session')`,
		Args:    []any{userID},
		SortCol: "created_at", IDCol: "id", Desc: true,
	}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Token, Cursor, error) {
		t, err := scanToken(rows)
		return t, Cursor{N: ms(t.CreatedAt), ID: t.ID}, err
	})
}

// TouchTokens records when tokens were last used, in one transaction that
// leaves the change counter alone (nothing cached depends on last use, so
// the read caches stay warm). A stored time is never moved back.
func (db *DB) TouchTokens(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	return db.writeTx(ctx, false, func(tx *Tx) error {
		for id, at := range used {
			if _, err := tx.exec(`UPDATE tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`, ms(at), id, ms(at)); err != nil {
				return err
			}
		}
		return nil
	})
}

// defaultTokenLabels name tokens created without a label.
var defaultTokenLabels = map[string]string{"api": "API token", "session": "SAML sign-in", "installation": "Integration installation"}

func insertToken(tx *Tx, t *Token) error {
	t.ID = NewID()
	t.CreatedAt = tx.Now
	if t.Kind == "" {
		t.Kind = "api"
	}
	if t.Label == "" {
		t.Label = defaultTokenLabels[t.Kind]
	}
	_, err := tx.exec(`INSERT INTO tokens (id, user_id, hash, kind, organization_id, created_at, expires_at, label, read_only) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.UserID, t.Hash, t.Kind, strOrNil(t.OrganizationID), ms(t.CreatedAt), timeOrNil(t.ExpiresAt), t.Label, boolInt(t.ReadOnly))
	return err
}
