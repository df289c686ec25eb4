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
