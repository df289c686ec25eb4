package storage

import (
	"context"
	"time"
)

// IdempotentResponse is the first answer to a request sent with an
// Idempotency-Key, kept so that retries get it again.
type IdempotentResponse struct {
	Fingerprint string // what the request was: retries must match it
	Status      int
	Headers     string // JSON object
	Body        []byte
	CreatedAt   time.Time
}

// IdempotentResponse returns the response stored for (scope, key) after
// since, or ErrNotFound.
func (db *DB) IdempotentResponse(ctx context.Context, scope, key string, since time.Time) (IdempotentResponse, error) {
	var res IdempotentResponse
	var created int64
	err := db.r().QueryRowContext(ctx,
		`SELECT fingerprint, status, headers, body, created_at FROM idempotency_keys WHERE scope = ? AND key = ? AND created_at >= ?`,
		scope, key, ms(since)).Scan(&res.Fingerprint, &res.Status, &res.Headers, &res.Body, &created)
	if err != nil {
		return res, notFound(err)
	}
	res.CreatedAt = FromMillis(created)
	return res, nil
}

// SaveIdempotentResponse stores res for (scope, key), replacing an expired one.
func (db *DB) SaveIdempotentResponse(ctx context.Context, scope, key string, res IdempotentResponse) error {
	return db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO idempotency_keys (scope, key, fingerprint, status, headers, body, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
				headers = excluded.headers, body = excluded.body, created_at = excluded.created_at`,
			scope, key, res.Fingerprint, res.Status, res.Headers, res.Body, ms(tx.Now))
		return err
	})
}

// PurgeIdempotentResponses deletes responses stored before cutoff.
func (db *DB) PurgeIdempotentResponses(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM idempotency_keys WHERE created_at < ?`, ms(cutoff))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
