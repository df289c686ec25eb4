// Package seed fills a docsapi database quickly for benchmarks: every
// seeder writes its rows with direct SQL in a single write transaction.
// The command bench/seed/cmd/seed drives it from run.sh; Go benchmarks call
// it directly.
//
// A later resource family adds a seeder in its own file (see members.go):
// a function taking the Env and a count, registered in init with a flag name.
package seed

import (
	"context"
	"database/sql"
	"strings"

	"docsapi/auth"
	"docsapi/storage"
)

// Env is what seeders share: the database, the organization being filled,
// and Out, the values a benchmark needs (ids to request, the token).
type Env struct {
	DB    *storage.DB
	Org   string
	Admin string
	Token string
	Out   map[string]any

	// MemberIDs are the members Members added, for the seeders after it.
	MemberIDs []string
	// TeamIDs are the teams Teams created.
	TeamIDs []string
	// Collections, when above zero, is how many collections Spaces
	// spreads its spaces over (default: one per hundred spaces).
	Collections int
}

// Seeder fills one kind of resource; the command exposes it as a flag.
type Seeder struct {
	Name string
	Help string
	Run  func(ctx context.Context, e *Env, n int) error
}

// Seeders run in registration order (file name order), so a family may rely
// on the ones before it (teams after members).
var Seeders []Seeder

func register(name, help string, run func(ctx context.Context, e *Env, n int) error) {
	Seeders = append(Seeders, Seeder{Name: name, Help: help, Run: run})
}

// Bootstrap creates an organization whose admin is a new user with an API
// token, and returns the Env to seed it.
func Bootstrap(ctx context.Context, db *storage.DB, title string) (*Env, error) {
	secret, hash := auth.NewToken()
	b, err := db.CreateOrganizationWithAdmin(ctx, title, "bench-admin-"+storage.NewID()+"@example.com", "Bench Admin", hash)
	if err != nil {
		return nil, err
	}
	return &Env{DB: db, Org: b.Organization.ID, Admin: b.User.ID, Token: secret, Out: map[string]any{
		"organization": b.Organization.ID, "user": b.User.ID, "token": secret,
	}}, nil
}

// batchInsert writes rows with multi-row INSERTs (cols values per row),
// one prepared statement for every full batch, so that seeding a million
// rows takes seconds. A large page cache keeps the random primary keys'
// index pages in memory for the transaction.
func batchInsert(tx *storage.Tx, ctx context.Context, table string, cols []string, rows [][]any) error {
	const perStmt = 500
	if tx.Engine() == "sqlite" {
		if _, err := tx.ExecContext(ctx, `PRAGMA cache_size = -262144`); err != nil {
			return err
		}
	}
	insert := func(n int) string {
		row := "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
		return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " + row + strings.Repeat(", "+row, n-1)
	}
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	args := make([]any, 0, perStmt*len(cols))
	for len(rows) > 0 {
		chunk := rows[:min(perStmt, len(rows))]
		rows = rows[len(chunk):]
		args = args[:0]
		for _, r := range chunk {
			args = append(args, r...)
		}
		var err error
		if len(chunk) < perStmt {
			_, err = tx.ExecContext(ctx, insert(len(chunk)), args...)
		} else {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, insert(perStmt)); err != nil {
					return err
				}
			}
			_, err = full.ExecContext(ctx, args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// withoutIndexes runs fn with the secondary indexes of tables dropped and
// builds them again afterwards, in the same transaction: building an index
// from a million rows at once is several times faster than keeping it up
// to date row by row (the rows arrive in random id order). The index
// definitions are read back from the schema, so they stay the migrations'.
// On PostgreSQL fn runs with the indexes in place (the definitions live in
// pg_indexes, and seeding there is not benchmarked at scale).
func withoutIndexes(tx *storage.Tx, ctx context.Context, tables []string, fn func() error) error {
	if tx.Engine() != "sqlite" {
		return fn()
	}
	var defs []string
	for _, t := range tables {
		rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, t)
		if err != nil {
			return err
		}
		var names []string
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				rows.Close()
				return err
			}
			names, defs = append(names, name), append(defs, def)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, name := range names {
			if _, err := tx.ExecContext(ctx, `DROP INDEX "`+name+`"`); err != nil {
				return err
			}
		}
	}
	if err := fn(); err != nil {
		return err
	}
	for _, def := range defs {
		if _, err := tx.ExecContext(ctx, def); err != nil {
			return err
		}
	}
	return nil
}
