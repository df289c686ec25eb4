package storage

import (
	"math/rand/v2"
	"testing"
)

// What the merge property test (merge_delta_test.go, package storage_test:
// it imports merge, which imports storage) needs of the internal tests.

func TwoSpacesForTest(t *testing.T) (*DB, [2]string) { return twoSpaces(t) }

func RandomPageEditForTest(rng *rand.Rand, pages []ContentPage, next int) (string, func(t PageTree) error) {
	return randomPageEdit(rng, pages, next)
}

func RevisionShapeForTest(t *testing.T, db *DB, spaceID, rev string) string {
	return revisionShape(t, db, spaceID, rev)
}

func OverlayShapeForTest(t *testing.T, db *DB, rev string) string { return overlayShape(t, db, rev) }

func SearchShapeForTest(t *testing.T, db *DB, spaceID string) string {
	return searchShape(t, db, spaceID)
}

func SpaceHeadForTest(db *DB, spaceID string) (string, error) { return db.spaceHeadRevision(spaceID) }

// ModelAnalyzerForTest resolves a body's "link:path" against the tree.
var ModelAnalyzerForTest Analyzer = modelAnalyzer{}

var ErrSkipEditForTest = errSkipEdit

const RaceDetectorForTest = raceDetector

func FirstUserForTest(t *testing.T, db *DB) string {
	t.Helper()
	var user string
	if err := db.r().QueryRowContext(t.Context(), `SELECT id FROM users`).Scan(&user); err != nil {
		t.Fatal(err)
	}
	return user
}
