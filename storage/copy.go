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
//   - copies the full-text search index as its rows (search_docs) and its
//     text (copySearchIndex);
//   - counts every table on both ends before committing and fails on any
//     difference. The counts are returned, table by table.
func CopyDatabase(ctx context.Context, src, dst *DB) ([]TableCount, error) {
	if src.process == dst.process {
		return nil, errors.New("copy-db: source and target are the same database handle")
	}
	var counts []TableCount
	err := src.ReadTx(ctx, func(from queryer) error {
		tables, refs, err := copyCatalog(ctx, from, src.isPostgres())
		if err != nil {
			return err
		}
		order, err := referencedFirst(tables, refs)
		if err != nil {
			return err
		}
		return dst.Write(ctx, func(to *Tx) error {
			if err := refuseNonEmpty(to, order); err != nil {
				return err
			}
			restore, err := suspendChecks(to, dst.isPostgres(), order)
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
			n, err := copySearchIndex(ctx, from, to)
			if err != nil {
				return fmt.Errorf("copy-db: search index: %w", err)
			}
			counts = append(counts, TableCount{Table: searchIndexTable, Source: n})
			if err := restore(); err != nil {
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

// searchIndexTable is the full-text index, copied by copySearchIndex and
// not as a table (on SQLite it is an FTS5 virtual table with shadow tables
// of its own).
const searchIndexTable = "search_sections"

// isPostgres tells which statements the copy's catalog steps use. This
// branch has SQLite only; pgcore's dialect answers it at merge.
func (db *DB) isPostgres() bool { return false }

// copyCatalog lists the tables to copy and their foreign keys (table →
// tables it references). The catalog is the one place the two engines
// differ here, so both forms stay side by side in this function (the lead
// moves them into the dialect layer at merge).
func copyCatalog(ctx context.Context, q queryer, postgres bool) (tables []string, refs map[string][]string, err error) {
	tablesSQL := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ? AND name NOT LIKE ?`
	args := []any{searchIndexTable, searchIndexTable + "_%"} // FTS5 and its shadow tables
	refsSQL := `SELECT DISTINCT m.name, f."table" FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`
	if postgres {
		tablesSQL = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
 AND table_name <> ? AND table_name NOT LIKE ?`
		refsSQL = `SELECT DISTINCT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c
 JOIN pg_namespace n ON n.oid = c.connamespace WHERE c.contype = 'f' AND n.nspname = current_schema()`
	}
	rows, err := q.QueryContext(ctx, tablesSQL, args...)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, nil, err
		}
		if !bookkeepingTables[t] {
			tables = append(tables, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	refs = map[string][]string{}
	rows, err = q.QueryContext(ctx, refsSQL)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			return nil, nil, err
		}
		refs[from] = append(refs[from], to)
	}
	return tables, refs, rows.Err()
}

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

// suspendChecks turns off, for this transaction, what would change or
// refuse rows as they are copied: triggers (they would count the copied
// spaces a second time in counters that are copied too) and immediate
// foreign-key checks (checked at the commit instead). restore turns the
// triggers back on inside the same transaction. Both engines' forms are
// here side by side (the lead moves them into the dialect layer at merge).
func suspendChecks(to *Tx, postgres bool, tables []string) (restore func() error, err error) {
	if postgres {
		// Foreign keys declared DEFERRABLE wait for the commit; the others
		// are checked row by row, which the referenced-first order
		// satisfies except for a table referencing itself.
		if _, err := to.exec(`SET CONSTRAINTS ALL DEFERRED`); err != nil {
			return nil, err
		}
		for _, t := range tables {
			if _, err := to.exec(`ALTER TABLE ` + quoteIdent(t) + ` DISABLE TRIGGER USER`); err != nil {
				return nil, err
			}
		}
		return func() error {
			for _, t := range tables {
				if _, err := to.exec(`ALTER TABLE ` + quoteIdent(t) + ` ENABLE TRIGGER USER`); err != nil {
					return err
				}
			}
			return nil
		}, nil
	}
	if _, err := to.exec(`PRAGMA defer_foreign_keys = ON`); err != nil {
		return nil, err
	}
	// SQLite cannot switch a trigger off: they are dropped and created again
	// from their own SQL, in this transaction.
	rows, err := to.QueryContext(to.ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		names, defs = append(names, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := to.tx.ExecContext(to.ctx, `DROP TRIGGER `+quoteIdent(name)); err != nil {
			return nil, err
		}
	}
	return func() error {
		for _, def := range defs {
			if _, err := to.tx.ExecContext(to.ctx, def); err != nil {
				return err
			}
		}
		return nil
	}, nil
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

// copySearchIndex copies the full-text index's text: each section's title
// and body under the rowid its search_docs row (copied as a table) has.
// This is the SQLite form (FTS5 on both ends); on PostgreSQL the index is
// pgcore's tsvector and the dialect provides this step at merge.
func copySearchIndex(ctx context.Context, from queryer, to *Tx) (int64, error) {
	rows, err := from.QueryContext(ctx, `SELECT rowid, title, body FROM search_sections`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	var batch [][]any
	flush := func() error {
		err := insertBatch(to, `INSERT INTO search_sections (rowid, title, body) VALUES `, 3, batch)
		n += int64(len(batch))
		batch = batch[:0]
		return err
	}
	for rows.Next() {
		var id int64
		var title, body string
		if err := rows.Scan(&id, &title, &body); err != nil {
			return n, err
		}
		if batch = append(batch, []any{id, title, body}); len(batch) == copyBatch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// quoteIdent quotes a table or column name read from the catalog.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
