package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// GlossaryEntry is one entry of an organization's translations glossary:
// Translations is a JSON object of language code -> term.
type GlossaryEntry struct {
	ID             string
	OrganizationID string
	Translations   string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// GlossaryOp is one operation of a glossary batch: Type insert (ID
// ignored), update (ID, Translations) or delete (ID).
type GlossaryOp struct {
	Type         string
	ID           string
	Translations string
}

// GlossaryOpMissing says which operation of a batch named an entry the
// organization does not have; nothing of the batch was applied.
type GlossaryOpMissing struct{ Index int }

func (e *GlossaryOpMissing) Error() string {
	return fmt.Sprintf("glossary operation %d: %v", e.Index, ErrNotFound)
}

func (e *GlossaryOpMissing) Unwrap() error { return ErrNotFound }

const glossaryCols = `g.id, g.organization_id, g.translations, g.created_at, g.updated_at`

func scanGlossaryEntry(sc interface{ Scan(...any) error }, extra ...any) (GlossaryEntry, error) {
	var g GlossaryEntry
	var created, updated int64
	if err := sc.Scan(append([]any{&g.ID, &g.OrganizationID, &g.Translations, &created, &updated}, extra...)...); err != nil {
		return g, notFound(err)
	}
	g.CreatedAt, g.UpdatedAt = FromMillis(created), FromMillis(updated)
	return g, nil
}

// GlossaryEntry reads an entry of orgID's glossary.
func (db *DB) GlossaryEntry(ctx context.Context, orgID, id string) (GlossaryEntry, error) {
	return scanGlossaryEntry(db.r().QueryRowContext(ctx, `SELECT `+glossaryCols+` FROM glossary_entries g
 WHERE g.organization_id = ? AND g.id = ?`, orgID, id))
}

// ListGlossaryEntries pages through an organization's glossary, oldest
// first (a batch's entries in the order of its operations).
func (db *DB) ListGlossaryEntries(ctx context.Context, orgID string, pq PageQuery) (Page[GlossaryEntry], error) {
	spec := listSpec{Select: glossaryCols + ", g.ord", From: `FROM glossary_entries g WHERE g.organization_id = ?`,
		Args: []any{orgID}, SortCol: "g.ord", IDCol: "g.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (GlossaryEntry, Cursor, error) {
		var ord int64
		g, err := scanGlossaryEntry(rows, &ord)
		return g, Cursor{N: ord, ID: g.ID}, err
	})
}

// Glossary reads the whole glossary of orgID (for translation runs),
// oldest first.
func (db *DB) Glossary(ctx context.Context, orgID string) ([]GlossaryEntry, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT `+glossaryCols+` FROM glossary_entries g
 WHERE g.organization_id = ? ORDER BY g.ord, g.id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GlossaryEntry
	for rows.Next() {
		g, err := scanGlossaryEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// ErrGlossaryFull refuses a batch that would leave a glossary over the
// entries ApplyGlossaryOps was given.
var ErrGlossaryFull = errors.New("storage: the glossary would be over its entries")

// ApplyGlossaryOps applies a batch to orgID's glossary in one transaction:
// all of it or, when an update or delete names an entry orgID does not
// have (*GlossaryOpMissing), or the glossary would hold more than
// maxEntries (ErrGlossaryFull, counted in the transaction), none of it.
func (db *DB) ApplyGlossaryOps(ctx context.Context, orgID string, ops []GlossaryOp, maxEntries int) error {
	return db.Write(ctx, func(tx *Tx) error {
		for i, op := range ops {
			var res sql.Result
			var err error
			switch op.Type {
			case "insert":
				_, err = tx.exec(`INSERT INTO glossary_entries (id, organization_id, translations, ord, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?)`, NewID(), orgID, op.Translations, ms(tx.Now)*1000+int64(i), ms(tx.Now), ms(tx.Now))
				if err != nil {
					return err
				}
				continue
			case "update":
				res, err = tx.exec(`UPDATE glossary_entries SET translations = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
					op.Translations, ms(tx.Now), orgID, op.ID)
			case "delete":
				res, err = tx.exec(`DELETE FROM glossary_entries WHERE organization_id = ? AND id = ?`, orgID, op.ID)
			default:
				return fmt.Errorf("glossary operation %d: unknown type %q", i, op.Type)
			}
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return &GlossaryOpMissing{Index: i}
			}
		}
		var n int
		if err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM glossary_entries WHERE organization_id = ?`, orgID).Scan(&n); err != nil {
			return err
		}
		if n > maxEntries {
			return ErrGlossaryFull
		}
		return nil
	})
}
