package storage

import (
	"context"
	"time"
)

// IdempotentResponse is the first answer to a request sent with an
// Idempotency-Key, kept so that retries get it again. Status 0 is a key
// recorded by the write it answers (ReserveIdempotencyKey) whose answer is
// not stored yet: the request is being answered, or the process answering
// it stopped between its commit and storing the answer.
type IdempotentResponse struct {
	Fingerprint string // what the request was: retries must match it
	Status      int    // 0: answer pending
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

// SaveIdempotentResponse stores res for (scope, key): the answer of the
// key reserved by the request's write, or of a request that wrote nothing
// (replacing an expired row). No cache depends on it: the change counter
// is left alone.
func (db *DB) SaveIdempotentResponse(ctx context.Context, scope, key string, res IdempotentResponse) error {
	return db.writeTx(ctx, false, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO idempotency_keys (scope, key, fingerprint, status, headers, body, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
				headers = excluded.headers, body = excluded.body, created_at = excluded.created_at`,
			scope, key, res.Fingerprint, res.Status, res.Headers, res.Body, ms(tx.Now))
		return err
	})
}

// ReserveIdempotencyKey records (scope, key) for the request identified by
// fingerprint inside tx, the write transaction of the request's create, so
// that the key commits with what it answers (the answer itself is stored
// after, by SaveIdempotentResponse). owner names the request (a random
// value) so that only it can drop the reservation (DropIdempotencyKey). A
// live row of another request (one stored after since) is left alone:
// false, and the caller rolls its write back. An expired row is replaced.
func ReserveIdempotencyKey(tx *Tx, scope, key, fingerprint, owner string, since time.Time) (bool, error) {
	res, err := tx.exec(`INSERT INTO idempotency_keys (scope, key, fingerprint, status, headers, body, created_at)
			VALUES (?, ?, ?, 0, ?, ?, ?)
			ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = 0,
				headers = excluded.headers, body = excluded.body, created_at = excluded.created_at
			WHERE idempotency_keys.created_at < ?`,
		scope, key, fingerprint, pendingOwner(owner), []byte{}, ms(tx.Now), ms(since))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// pendingOwner is what a reserved key's headers hold until its answer is
// stored: the reserving request's owner value.
func pendingOwner(owner string) string { return `{"pending":"` + owner + `"}` }

// DropIdempotencyKey deletes the reservation owner made of (scope, key)
// while no answer is stored in it: the request failed after its write
// committed, so, as for any failed request, a retry runs again.
func (db *DB) DropIdempotencyKey(ctx context.Context, scope, key, owner string) error {
	return db.writeTx(ctx, false, func(tx *Tx) error {
		_, err := tx.exec(`DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND status = 0 AND headers = ?`, scope, key, pendingOwner(owner))
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
