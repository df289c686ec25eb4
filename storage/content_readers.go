package storage

import (
	"context"
	"database/sql"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// ReaderQuery asks who of an organization's members reaches a space or a
// collection, and with which role, as ranks (the resolver's order of
// roles). A member's rank is the admin rank for organization admins;
// otherwise the highest of: their organization role's rank capped by
// Default, the best grant to them or to a team of theirs on one of Targets,
// and Floor.
type ReaderQuery struct {
	Targets []ContentRef   // the item and the collections above it
	Ranks   map[string]int // the rank of each role name
	Admin   string         // the organization role that reaches everything
	// Default caps the organization role: the rank the item's default
	// levels give (the admin rank when they inherit the organization role).
	Default int
	Floor   int // every member's least rank (read on public spaces)
	Only    int // > 0: only members of exactly this rank
}

// ContentReader is a member with the rank they reach the item with.
type ContentReader struct {
	Member Member
	Rank   int
}

// roleName guards the role names written into SQL as literals (a fixed
// set the resolver owns, never input).
var roleName = regexp.MustCompile(`^[a-z]+$`)

// ListContentReaders pages through the members who reach an item (rank
// above 0), in join order, in SQL: a page reads its rows through the
// members index and the grants on the item's chain, whatever the number of
// members; the total is counted once between writes, like every list's.
func (db *DB) ListContentReaders(ctx context.Context, orgID string, q ReaderQuery, pq PageQuery) (Page[ContentReader], error) {
	roles := make([]string, 0, len(q.Ranks))
	for r := range q.Ranks {
		if !roleName.MatchString(r) {
			panic("storage: role name " + strconv.Quote(r) + " cannot be a SQL literal")
		}
		roles = append(roles, r)
	}
	sort.Strings(roles) // the same SQL for the same query: prepared once
	rankOf := func(col string) string {
		var b strings.Builder
		b.WriteString("(CASE " + col)
		for _, r := range roles {
			b.WriteString(" WHEN '" + r + "' THEN " + strconv.Itoa(q.Ranks[r]))
		}
		b.WriteString(" ELSE 0 END)")
		return b.String()
	}
	var args []any
	chain := func() string {
		parts := make([]string, len(q.Targets))
		for i, t := range q.Targets {
			parts[i] = "(g.target_kind = ? AND g.target_id = ?)"
			args = append(args, t.Kind, t.ID)
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	}
	// The best grant of each grantee on the chain, to them or to a team of
	// theirs: only the grants on the chain are read.
	from := `FROM members m JOIN users u ON u.id = m.user_id LEFT JOIN (SELECT x.user_id, MAX(x.rank) AS rank FROM (
 SELECT g.principal_id AS user_id, ` + rankOf("g.role") + ` AS rank FROM content_grants g
  WHERE g.organization_id = ? AND g.principal_kind = 'user' AND `
	args = append(args, orgID)
	from += chain() + `
 UNION ALL SELECT tm.user_id, ` + rankOf("g.role") + ` FROM content_grants g JOIN team_members tm ON tm.team_id = g.principal_id
  WHERE g.organization_id = ? AND g.principal_kind = 'team' AND `
	args = append(args, orgID)
	from += chain() + `) x GROUP BY x.user_id) gr ON gr.user_id = m.user_id WHERE m.organization_id = ?`
	args = append(args, orgID)

	// The rank, in portable CASEs (no GREATEST/LEAST: SQLite has none).
	n := strconv.Itoa
	capped := `(CASE WHEN ` + rankOf("m.role") + ` < ` + n(q.Default) + ` THEN ` + rankOf("m.role") + ` ELSE ` + n(q.Default) + ` END)`
	granted := `(CASE WHEN ` + capped + ` > COALESCE(gr.rank, 0) THEN ` + capped + ` ELSE COALESCE(gr.rank, 0) END)`
	rank := `(CASE WHEN m.role = '` + q.Admin + `' THEN ` + n(q.Ranks[q.Admin]) + ` WHEN ` + granted + ` > ` + n(q.Floor) +
		` THEN ` + granted + ` ELSE ` + n(q.Floor) + ` END)`
	from += ` AND ` + rank + ` > 0`
	if q.Only > 0 {
		from += ` AND ` + rank + ` = ` + n(q.Only)
	}
	spec := listSpec{Select: memberSelect + `, ` + rank, From: from, Args: args, SortCol: "m.joined_at", IDCol: "m.user_id", Dynamic: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (ContentReader, Cursor, error) {
		var r ContentReader
		var err error
		r.Member, err = scanMember(scanWith(func(dest ...any) error { return rows.Scan(append(dest, &r.Rank)...) }), orgID)
		return r, Cursor{N: r.Member.JoinedAt.UnixMilli(), ID: r.Member.User.ID}, err
	})
}
