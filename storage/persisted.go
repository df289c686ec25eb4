package storage

import (
	"context"
	"fmt"
	"time"
)

// PersistedQuery is a GraphQL document registered ahead (docsapi admin
// persisted-queries): Hash is the hex SHA-256 of Body, which the caller
// checks.
type PersistedQuery struct {
	Hash      string
	Name      string
	Body      string
	CreatedAt time.Time
}

// MaxPersistedQueries bounds the registered documents (as the manifest
// file's operations).
const MaxPersistedQueries = 100000

// PersistedQueryBody reads the registered document of hash
// (ErrNotFound when there is none).
func (db *DB) PersistedQueryBody(ctx context.Context, hash string) (string, error) {
	var body string
	err := db.r().QueryRowContext(ctx, `SELECT body FROM graphql_persisted_queries WHERE hash = ?`, hash).Scan(&body)
	return body, notFound(err)
}

// ListPersistedQueries reads every registered document (at most
// MaxPersistedQueries), by hash.
func (db *DB) ListPersistedQueries(ctx context.Context) ([]PersistedQuery, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT hash, name, body, created_at FROM graphql_persisted_queries ORDER BY hash LIMIT ?`, MaxPersistedQueries)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PersistedQuery
	for rows.Next() {
		var q PersistedQuery
		var created int64
		if err := rows.Scan(&q.Hash, &q.Name, &q.Body, &created); err != nil {
			return nil, err
		}
		q.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, q)
	}
	return out, rows.Err()
}

// ErrTooManyPersistedQueries refuses a registration that would leave more
// than MaxPersistedQueries documents.
var ErrTooManyPersistedQueries = errorString("storage: more than 100000 registered GraphQL documents")

type errorString string

func (e errorString) Error() string { return string(e) }

// AddPersistedQueries registers qs in one transaction (a document already
// registered keeps its first name and time) and returns how many were new.
func (db *DB) AddPersistedQueries(ctx context.Context, qs []PersistedQuery) (int, error) {
	added := 0
	err := db.Write(ctx, func(tx *Tx) error {
		added = 0
		for _, q := range qs {
			res, err := tx.exec(`INSERT INTO graphql_persisted_queries (hash, name, body, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING`,
				q.Hash, q.Name, q.Body, ms(tx.Now))
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			added += int(n)
		}
		var total int
		if err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM graphql_persisted_queries`).Scan(&total); err != nil {
			return err
		}
		if total > MaxPersistedQueries {
			return ErrTooManyPersistedQueries
		}
		return nil
	})
	return added, err
}

// RemovePersistedQueries unregisters the documents of hashes in one
// transaction, all or none: ErrNotFound when one is not registered.
func (db *DB) RemovePersistedQueries(ctx context.Context, hashes []string) (int, error) {
	removed := 0
	err := db.Write(ctx, func(tx *Tx) error {
		removed = 0
		for _, h := range hashes {
			res, err := tx.exec(`DELETE FROM graphql_persisted_queries WHERE hash = ?`, h)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("GraphQL document %s: %w", h, ErrNotFound)
			}
			removed += int(n)
		}
		return nil
	})
	return removed, err
}
