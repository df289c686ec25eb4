package storage

import (
	"context"
	"database/sql"
	"sort"
)

// PrimeAccess reads the AccessData of every user of userIDs in orgID that
// the access cache lacks (after a change of access, all of them) into the
// cache, in three statements for up to inListMax users (their
// memberships, their teams, the grants to them or to their teams) instead
// of three for each: the cold path of a live event's subscribers, who
// each then find their access cached. What it reads equals accessAt's
// read of each user (TestPrimeAccessAsAccessAt).
func (db *DB) PrimeAccess(ctx context.Context, orgID string, userIDs []string) error {
	if orgID == "" || len(userIDs) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx) // shared by an event's subscribers
	// Warm: every subscriber's access is cached at the access counter read
	// now (the counters read every request makes): no read transaction.
	if c, err := readCounters(ctx, db.r()); err == nil && len(db.accessMissing(orgID, userIDs, c.access)) == 0 {
		return nil
	}
	return db.ReadTx(ctx, func(q queryer) error {
		db.readTxs.Add(1)
		c, err := readCounters(ctx, q)
		if err != nil {
			return err
		}
		missing := db.accessMissing(orgID, userIDs, c.access)
		if len(missing) == 0 {
			return nil
		}
		var tree CollectionTree
		treeRead := false
		return inChunks(missing, func(users []string) error {
			got, err := readAccessOf(ctx, q, orgID, users, int(db.spaceGrantsMax.Load()))
			if err != nil {
				return err
			}
			for _, u := range users {
				a := got[u]
				if a == nil {
					a = &AccessData{UserID: u}
				}
				if a.Membership != nil {
					if !treeRead {
						if tree, err = db.trees.get(ctx, q, orgID, c.access); err != nil {
							return err
						}
						treeRead = true
					}
					a.Tree = tree
				}
				a.Memo = &Memo{}
				db.access.put(accessKey(orgID, u), c.access, *a, accessSize(*a))
			}
			return nil
		})
	})
}

// accessMissing is userIDs (each once, none empty) less those whose access
// in orgID the cache holds at version.
func (db *DB) accessMissing(orgID string, userIDs []string, version int64) []string {
	seen := map[string]bool{}
	var missing []string
	for _, u := range userIDs {
		if u == "" || seen[u] {
			continue
		}
		seen[u] = true
		if _, ok := db.access.get(accessKey(orgID, u), version); !ok {
			missing = append(missing, u)
		}
	}
	return missing
}

// readAccessOf reads the memberships, teams and grants of users in orgID
// (a chunk: at most inListMax), by user; the users without a membership
// are absent.
func readAccessOf(ctx context.Context, q queryer, orgID string, users []string, max int) (map[string]*AccessData, error) {
	in := placeholders(len(users))
	args := append([]any{orgID}, anySlice(users)...)
	out := map[string]*AccessData{}
	rows, err := q.QueryContext(ctx, `SELECT user_id, role, sso FROM members WHERE organization_id = ? AND user_id IN (`+in+`)`, args...) // variable arity: not cached
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var u string
		var role sql.NullString
		var sso bool
		if err := rows.Scan(&u, &role, &sso); err != nil {
			rows.Close()
			return nil, err
		}
		out[u] = &AccessData{UserID: u, Membership: &Membership{Role: nullStr(role), SSO: sso}}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	// Teams, in each user's order of accessTeamsSQL (by team id).
	members := map[string][]string{} // team id -> its members among users
	rows, err = q.QueryContext(ctx, `SELECT user_id, team_id FROM team_members WHERE organization_id = ? AND user_id IN (`+in+`) ORDER BY user_id, team_id`, args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var u, team string
		if err := rows.Scan(&u, &team); err != nil {
			rows.Close()
			return nil, err
		}
		if a := out[u]; a != nil {
			a.Teams = append(a.Teams, team)
			members[team] = append(members[team], u)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Grants to the users themselves or to their teams: on collections all
	// of them; on spaces those of the users with at most max in all
	// (access_grants.go), the others' AccessData partial.
	gargs := append(append(append([]any{orgID}, anySlice(users)...), orgID), anySlice(users)...)
	grants, err := scanGrants(q.QueryContext(ctx, grantSelect+` WHERE g.organization_id = ? AND g.target_kind = 'collection' AND (
 (g.principal_kind = 'user' AND g.principal_id IN (`+in+`)) OR
 (g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.organization_id = ? AND tm.user_id IN (`+in+`))))`, gargs...))
	if err != nil {
		return nil, err
	}
	teamsOf := map[string][]string{}
	for u, a := range out {
		teamsOf[u] = a.Teams
	}
	held, partial, err := spaceGrantPrincipals(ctx, q, orgID, users, teamsOf, max)
	if err != nil {
		return nil, err
	}
	for u := range partial {
		if a := out[u]; a != nil {
			a.SpaceGrantsPartial = true
		}
	}
	heldUsers, heldTeams := heldPrincipals(held)
	for _, p := range []struct {
		kind string
		ids  []string
	}{{"user", heldUsers}, {"team", heldTeams}} {
		err := inChunks(p.ids, func(ids []string) error {
			gs, err := scanGrants(q.QueryContext(ctx, grantSelect+` WHERE g.organization_id = ? AND g.target_kind = 'space' AND g.principal_kind = '`+p.kind+
				`' AND g.principal_id IN (`+placeholders(len(ids))+`)`, append([]any{orgID}, anySlice(ids)...)...))
			grants = append(grants, gs...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	sort.SliceStable(grants, func(i, j int) bool { return grantLess(grants[i], grants[j]) })
	for _, g := range grants {
		if g.PrincipalKind == "user" {
			if a := out[g.PrincipalID]; a != nil && (g.TargetKind != KindSpace || !a.SpaceGrantsPartial) {
				a.Grants = append(a.Grants, g)
			}
			continue
		}
		for _, u := range members[g.PrincipalID] {
			if a := out[u]; a != nil && (g.TargetKind != KindSpace || !a.SpaceGrantsPartial) {
				a.Grants = append(a.Grants, g)
			}
		}
	}
	return out, nil
}

// grantLess orders grants by target then principal (the order of a
// user's grants does not matter to its access; one order keeps the
// cached data comparable).
func grantLess(a, b ContentGrant) bool {
	if a.TargetKind != b.TargetKind {
		return a.TargetKind < b.TargetKind
	}
	if a.TargetID != b.TargetID {
		return a.TargetID < b.TargetID
	}
	if a.PrincipalKind != b.PrincipalKind {
		return a.PrincipalKind < b.PrincipalKind
	}
	return a.PrincipalID < b.PrincipalID
}
