package storage

import (
	"context"
	"database/sql"
)

// SigningKey is a key pair the server signs tokens with.
type SigningKey struct {
	ID         string
	Algorithm  string
	PrivateKey []byte
	PublicKey  []byte
}

// SigningKey returns the newest key of algorithm, creating it with gen when
// there is none yet (concurrent first calls keep the first key written).
func (db *DB) SigningKey(ctx context.Context, algorithm string, gen func() (priv, pub []byte, err error)) (SigningKey, error) {
	read := func(q queryer) (SigningKey, error) {
		var k SigningKey
		err := q.QueryRowContext(ctx, `SELECT id, algorithm, private_key, public_key FROM signing_keys WHERE algorithm = ? ORDER BY created_at DESC, id LIMIT 1`, algorithm).
			Scan(&k.ID, &k.Algorithm, &k.PrivateKey, &k.PublicKey)
		return k, err
	}
	k, err := read(db.r())
	if err != sql.ErrNoRows {
		return k, err
	}
	err = db.Write(ctx, func(tx *Tx) error {
		if k, err = read(tx); err != sql.ErrNoRows {
			return err
		}
		priv, pub, err := gen()
		if err != nil {
			return err
		}
		k = SigningKey{ID: NewID(), Algorithm: algorithm, PrivateKey: priv, PublicKey: pub}
		_, err = tx.exec(`INSERT INTO signing_keys (id, algorithm, private_key, public_key, created_at) VALUES (?, ?, ?, ?, ?)`, k.ID, k.Algorithm, k.PrivateKey, k.PublicKey, ms(tx.Now))
		return err
	})
	return k, err
}
