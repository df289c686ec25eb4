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
}

// TokenByHash finds the token whose secret hashes to hash.
func (db *DB) TokenByHash(ctx context.Context, hash string) (Token, error) {
	var t Token
	var org sql.NullString
	var created int64
	var exp sql.NullInt64
	err := db.r().QueryRowContext(ctx,
		`SELECT id, user_id, hash, kind, organization_id, created_at, expires_at FROM tokens WHERE hash = ?`, hash).
		Scan(&t.ID, &t.UserID, &t.Hash, &t.Kind, &org, &created, &exp)
	if err != nil {
		return t, notFound(err)
	}
	t.OrganizationID = nullStr(org)
	t.CreatedAt = FromMillis(created)
	t.ExpiresAt = nullMillis(exp)
	return t, nil
}

// CreateToken stores a token for an existing user.
func (db *DB) CreateToken(ctx context.Context, t *Token) error {
	return db.Write(ctx, func(tx *Tx) error { return insertToken(tx, t) })
}

// DeleteToken revokes a token; it reports whether one was deleted.
func (db *DB) DeleteToken(ctx context.Context, id string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM tokens WHERE id = ?`, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

func insertToken(tx *Tx, t *Token) error {
	t.ID = NewID()
	t.CreatedAt = tx.Now
	if t.Kind == "" {
		t.Kind = "api"
	}
	_, err := tx.exec(`INSERT INTO tokens (id, user_id, hash, kind, organization_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.UserID, t.Hash, t.Kind, strOrNil(t.OrganizationID), ms(t.CreatedAt), timeOrNil(t.ExpiresAt))
	return err
}
