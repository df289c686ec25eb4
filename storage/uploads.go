package storage

import (
	"context"
	"time"
)

// Upload is a file sent to one of the service's own signed upload URLs,
// waiting to be imported or attached.
type Upload struct {
	Key            string
	OrganizationID string
	Kind           string
	Name           string
	ContentType    string
	Size           int64
	Bytes          []byte
	CreatedAt      time.Time
}

// Uploads keeps uploaded files until they are used or expire.
type Uploads interface {
	// PutUpload stores u; a key already used is ErrExists (an upload URL
	// takes one file).
	PutUpload(ctx context.Context, u Upload) error
	// Upload reads the upload of key (ErrNotFound when there is none).
	Upload(ctx context.Context, key string) (Upload, error)
	// PendingUploads counts orgID's uploads made since since.
	PendingUploads(ctx context.Context, orgID string, since time.Time) (int, error)
	// PurgeUploads deletes uploads made before cutoff.
	PurgeUploads(ctx context.Context, cutoff time.Time) (int64, error)
}

func (db *DB) PutUpload(ctx context.Context, u Upload) error {
	// No cache reads uploads: the change counter stays (writeTx bump false).
	return db.writeTx(ctx, false, func(tx *Tx) error {
		res, err := tx.exec(`INSERT INTO uploads (key, organization_id, kind, name, content_type, size, bytes, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`,
			u.Key, u.OrganizationID, u.Kind, u.Name, u.ContentType, u.Size, u.Bytes, ms(tx.Now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = ErrExists
			}
			return err
		}
		return nil
	})
}

func (db *DB) Upload(ctx context.Context, key string) (Upload, error) {
	var u Upload
	var created int64
	err := db.r().QueryRowContext(ctx, `SELECT key, organization_id, kind, name, content_type, size, bytes, created_at
		FROM uploads WHERE key = ?`, key).Scan(&u.Key, &u.OrganizationID, &u.Kind, &u.Name, &u.ContentType, &u.Size, &u.Bytes, &created)
	u.CreatedAt = time.UnixMilli(created).UTC()
	return u, notFound(err)
}

func (db *DB) PurgeUploads(ctx context.Context, cutoff time.Time) (int64, error) {
	var n int64
	err := db.writeTx(ctx, false, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM uploads WHERE created_at < ?`, ms(cutoff))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

func (db *DB) PendingUploads(ctx context.Context, orgID string, since time.Time) (int, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM uploads WHERE organization_id = ? AND created_at >= ?`, orgID, ms(since)).Scan(&n)
	return n, err
}
