// Command seed fills a docsapi database quickly for benchmarks: it
// bootstraps an organization with an admin and an API token (or uses an
// existing organization), then runs each requested seeder, every one in a
// single write transaction of direct SQL. It prints one JSON line with the
// ids and the token the benchmark needs.
//
//	seed --db ./bench.db --members 10000 --teams 50
//
// A later resource family adds a seeder in its own file (see members.go):
// register a flag and a function in init.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"docsapi/auth"
	"docsapi/storage"
)

// Env is what seeders share: the database, the organization being filled,
// and Out, the values printed at the end (ids a benchmark will request).
type Env struct {
	DB    *storage.DB
	Org   string
	Admin string
	Out   map[string]any
}

// seeder fills one kind of resource; n is its flag's value (skipped at 0).
type seeder struct {
	name string
	help string
	def  int
	run  func(ctx context.Context, e *Env, n int) error
	n    *int
}

// seeders run in registration order (file name order), so a family may rely
// on the ones before it (teams after members).
var seeders []*seeder

func register(name string, def int, help string, run func(ctx context.Context, e *Env, n int) error) {
	seeders = append(seeders, &seeder{name: name, def: def, help: help, run: run})
}

func main() {
	dbPath := flag.String("db", "./data/bench.db", "docsapi database file (created when missing)")
	title := flag.String("org-title", "Bench Org", "title of the bootstrapped organization")
	for _, s := range seeders {
		s.n = flag.Int(s.name, s.def, s.help)
	}
	flag.Parse()
	if err := run(*dbPath, *title); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func run(dbPath, title string) error {
	ctx := context.Background()
	db, err := storage.Open(dbPath, storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	secret, hash := auth.NewToken()
	b, err := db.CreateOrganizationWithAdmin(ctx, title, "bench-admin-"+storage.NewID()+"@example.com", "Bench Admin", hash)
	if err != nil {
		return err
	}
	e := &Env{DB: db, Org: b.Organization.ID, Admin: b.User.ID, Out: map[string]any{
		"organization": b.Organization.ID, "user": b.User.ID, "token": secret,
	}}
	for _, s := range seeders {
		if *s.n <= 0 {
			continue
		}
		if err := s.run(ctx, e, *s.n); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return json.NewEncoder(os.Stdout).Encode(e.Out)
}

// batchInsert writes rows with multi-row INSERTs (cols values per row) so
// that seeding 10,000 rows takes a fraction of a second.
func batchInsert(tx *storage.Tx, ctx context.Context, table string, cols []string, rows [][]any) error {
	const perStmt = 200
	for len(rows) > 0 {
		chunk := rows[:min(perStmt, len(rows))]
		rows = rows[len(chunk):]
		q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
		args := make([]any, 0, len(chunk)*len(cols))
		for i, r := range chunk {
			if i > 0 {
				q += ", "
			}
			q += "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
