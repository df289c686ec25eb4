package seed

import (
	"context"
	"fmt"
	"time"

	"docsapi/storage"
)

func init() {
	register("members", "members to add to the organization (new users)", Members)
	register("teams", "teams to create; every seeded member joins one of them (round robin)", Teams)
}

// Members adds n users as members with distinct join times (one second
// apart, oldest first) and a spread of roles, so lists sort realistically.
func Members(ctx context.Context, e *Env, n int) error {
	roles := []any{"read", "comment", "edit", "review", "create", nil}
	base := time.Now().Add(-time.Duration(n+1) * time.Second).UnixMilli()
	users := make([][]any, 0, n)
	members := make([][]any, 0, n)
	ids := make([]string, 0, n)
	for i := range n {
		id := storage.NewID()
		ids = append(ids, id)
		at := base + int64(i)*1000
		users = append(users, []any{id, fmt.Sprintf("member%05d-%s@example.com", i, id[:6]), fmt.Sprintf("Member %05d", i), 1, at})
		members = append(members, []any{e.Org, id, roles[i%len(roles)], at})
	}
	err := e.DB.Write(ctx, func(tx *storage.Tx) error {
		if err := batchInsert(tx, ctx, "users", []string{"id", "email", "display_name", "signed_in", "created_at"}, users); err != nil {
			return err
		}
		return batchInsert(tx, ctx, "members", []string{"organization_id", "user_id", "role", "joined_at"}, members)
	})
	if err != nil {
		return err
	}
	e.Out["members"] = n
	e.Out["member"] = ids[n/2]
	e.MemberIDs = append(e.MemberIDs, ids...)
	return nil
}

// Teams creates n teams; the seeded members join them round robin.
func Teams(ctx context.Context, e *Env, n int) error {
	base := time.Now().Add(-time.Duration(n+1) * time.Second).UnixMilli()
	teams := make([][]any, 0, n)
	ids := make([]string, 0, n)
	for i := range n {
		id := storage.NewID()
		ids = append(ids, id)
		teams = append(teams, []any{id, e.Org, fmt.Sprintf("Team %04d", i), base + int64(i)*1000})
	}
	tms := make([][]any, 0, len(e.MemberIDs))
	for i, uid := range e.MemberIDs {
		tms = append(tms, []any{ids[i%n], e.Org, uid, "member", base})
	}
	err := e.DB.Write(ctx, func(tx *storage.Tx) error {
		if err := batchInsert(tx, ctx, "teams", []string{"id", "organization_id", "title", "created_at"}, teams); err != nil {
			return err
		}
		return batchInsert(tx, ctx, "team_members", []string{"team_id", "organization_id", "user_id", "role", "added_at"}, tms)
	})
	if err != nil {
		return err
	}
	// The stored per-member counts (storage keeps them on every API write).
	if err := e.DB.RecountMembers(ctx, e.Org); err != nil {
		return err
	}
	e.Out["teams"] = n
	e.Out["team"] = ids[0]
	e.TeamIDs = append(e.TeamIDs, ids...)
	return nil
}
