package storage

import (
	"context"
	"sync/atomic"
)

// CachedAccess is the access cache's entry of userID in orgID at the
// current access counter.
func (db *DB) CachedAccess(ctx context.Context, orgID, userID string) (AccessData, bool) {
	c, err := readCounters(ctx, db.r())
	if err != nil {
		return AccessData{}, false
	}
	return db.access.get(accessKey(orgID, userID), c.access)
}

// AccessRead is accessAt's read of userID in orgID, past the cache (under
// a version no reading has, each call its own).
func (db *DB) AccessRead(ctx context.Context, orgID, userID string) (AccessData, error) {
	return db.accessAt(ctx, db.r(), orgID, userID, -accessReads.Add(1))
}

var accessReads atomic.Int64

// PrimeReadTxs is the number of read transactions PrimeAccess opened.
func (db *DB) PrimeReadTxs() int64 { return db.readTxs.Load() }
