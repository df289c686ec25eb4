package storage

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// CopyDatabase copies every row of src into dst (docsapi admin copy-db):
// the way to move an installation to another database, e.g. from its
// SQLite file to PostgreSQL. Both are opened with Open, so both carry the
// same migrations. The copy
//
//   - reads src in one read transaction (one consistent snapshot, so a
//     running server may keep writing meanwhile) and writes dst in one write
//     transaction: on any failure nothing of it stays, and rerunning starts
//     over;
//   - refuses a dst that holds any row outside the migrations' bookkeeping
//     (schema_migrations and the counters the migrations seed);
//   - copies tables in foreign-key order (referenced tables first), in
//     batches of 100 rows, with dst's triggers suspended (the rows they
//     derive, such as the space counters, are copied as they are in src)
//     and its foreign-key checks deferred to the commit;
//   - copies the search index as the rows it is (plain tables, the same on
//     both engines);
//   - counts every table on both ends before committing and fails on any
//     difference. The counts are returned, table by table.
func CopyDatabase(ctx context.Context, src, dst *DB) ([]TableCount, error) {
	if src.process == dst.process {
		return nil, errors.New("copy-db: source and target are the same database handle")
	}
	var counts []TableCount
	err := src.ReadTx(ctx, func(from queryer) error {
		tables, refs, err := src.dialect.catalog(ctx, from)
		if err != nil {
			return err
		}
		order, err := referencedFirst(tables, refs)
		if err != nil {
			return err
		}
		return dst.Write(ctx, func(to *Tx) error {
			// The copy replaces the target's counters with the source's; the
			// webhook counter must still move past every value a process
			// serving the target may have read (webhookSubs).
			var webhooksBefore int64
			if err := to.QueryRowContext(ctx, `SELECT webhooks FROM change_counter WHERE id = 1`).Scan(&webhooksBefore); err != nil {
				return err
			}
			if err := refuseNonEmpty(to, order); err != nil {
				return err
			}
			restore, err := dst.dialect.suspendChecks(to, order)
			if err != nil {
				return err
			}
			for _, table := range order {
				n, err := copyTable(ctx, from, to, table)
				if err != nil {
					return fmt.Errorf("copy-db: table %s: %w", table, err)
				}
				counts = append(counts, TableCount{Table: table, Source: n})
			}
			if err := restore(); err != nil {
				return err
			}
			if _, err := to.exec(`UPDATE change_counter SET webhooks = webhooks + ? WHERE id = 1`, webhooksBefore+1); err != nil {
				return err
			}
			var wrong []string
			for i, c := range counts {
				if err := to.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+quoteIdent(c.Table)).Scan(&counts[i].Target); err != nil {
					return err
				}
				if counts[i].Target != c.Source {
					wrong = append(wrong, fmt.Sprintf("%s: %d rows in the source, %d in the target", c.Table, c.Source, counts[i].Target))
				}
			}
			if len(wrong) > 0 {
				return fmt.Errorf("copy-db: row counts differ, nothing was kept: %s", strings.Join(wrong, "; "))
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// TableCount is one table's rows in the source and, after the copy, in the
// target.
type TableCount struct {
	Table          string
	Source, Target int64
}

// bookkeepingTables are never copied: the migrations record themselves.
var bookkeepingTables = map[string]bool{"schema_migrations": true}

// seededTables hold one row the migrations insert (the change and token
// counters): an empty installation has them, and the copy replaces them
// with the source's.
var seededTables = map[string]bool{"change_counter": true, "token_changes": true}

// searchLegacyTable holds the sections of the engines' old full-text
// indexes until the open that migrated them has indexed them
// (backfillSearchIndex); never copied.
const searchLegacyTable = "search_legacy"

// referencedFirst orders tables so that every table comes after the tables
// it references (a table referencing itself, like collections, is fine:
// its checks are deferred to the commit). Ties are in name order, so the
// order is the same on every run.
func referencedFirst(tables []string, refs map[string][]string) ([]string, error) {
	sort.Strings(tables)
	known := map[string]bool{}
	for _, t := range tables {
		known[t] = true
	}
	done := map[string]bool{}
	var order []string
	for len(order) < len(tables) {
		progressed := false
		for _, t := range tables {
			if done[t] {
				continue
			}
			ready := true
			for _, r := range refs[t] {
				if r != t && known[r] && !done[r] {
					ready = false
					break
				}
			}
			if ready {
				done[t] = true
				order = append(order, t)
				progressed = true
			}
		}
		if !progressed {
			return nil, errors.New("copy-db: the tables' foreign keys form a cycle")
		}
	}
	return order, nil
}

// refuseNonEmpty fails when the target holds any row outside the
// bookkeeping; the seeded counters are emptied, to be copied from the source.
func refuseNonEmpty(to *Tx, tables []string) error {
	for _, t := range tables {
		if seededTables[t] {
			if _, err := to.exec(`DELETE FROM ` + quoteIdent(t)); err != nil {
				return err
			}
			continue
		}
		var n int
		if err := to.QueryRowContext(to.ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM `+quoteIdent(t)+` LIMIT 1) x`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("copy-db: the target is not empty (table %s has rows); copy into a new, empty database", t)
		}
	}
	return nil
}

// copyBatch is how many rows one INSERT of the copy carries at most.
const copyBatch = 100

// copyTable copies every row of table, all columns by name, in batches,
// and returns how many it copied.
func copyTable(ctx context.Context, from queryer, to *Tx, table string) (int64, error) {
	rows, err := from.QueryContext(ctx, `SELECT * FROM `+quoteIdent(table))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteIdent(c)
	}
	head := `INSERT INTO ` + quoteIdent(table) + ` (` + strings.Join(quoted, ", ") + `) VALUES `
	var n int64
	batch := make([][]any, 0, copyBatch)
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		batch = append(batch, vals)
		if len(batch) == copyBatch {
			if err := insertBatch(to, head, len(cols), batch); err != nil {
				return n, err
			}
			n += int64(len(batch))
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if err := insertBatch(to, head, len(cols), batch); err != nil {
		return n, err
	}
	return n + int64(len(batch)), nil
}

// quoteIdent quotes a table or column name read from the catalog.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
