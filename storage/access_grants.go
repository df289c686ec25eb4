package storage

import (
	"context"
	"fmt"
)

// A member's cached access (AccessData) holds what every request of theirs
// needs whatever it asks: the membership, the teams, the grants on
// collections (bounded by the organization's collection tree, which the
// cache holds anyway). Grants on spaces are held only up to a bound
// (Options.AccessSpaceGrants): a reader granted one space in a hundred of
// a million spaces has 10,000 of them, and the lists select the granted
// spaces in SQL by index (visible_spaces.go), so holding them whole made
// the cache, and every reload after a change of access, grow with the
// organization. Past the bound AccessData.SpaceGrantsPartial is set and
// the role of a space asks SpaceGrantsAmong about the spaces at hand (a
// page's, one request's): one statement per page, whatever the size.

// DefaultAccessSpaceGrants is the number of space grants a member's cached
// access holds at most when Options.AccessSpaceGrants is 0.
const DefaultAccessSpaceGrants = 256

// accessBytesMax bounds the access cache in bytes (accessSize's estimate):
// with at most DefaultAccessSpaceGrants space grants each, ten thousand
// entries fit unless members hold many collection grants.
const accessBytesMax = 64 << 20

// accessGranteeSQL is the grants of one kind (a quoted target kind) to a
// member and to their teams, as two arms of a UNION ALL so that each reads
// its principal's range of the index (an OR of the two read every grant
// of the organization); arguments: organization and user, twice.
func accessGranteeSQL(kind string) string {
	return grantSelect + ` WHERE g.organization_id = ? AND g.target_kind = ` + kind + ` AND g.principal_kind = 'user' AND g.principal_id = ?
UNION ALL ` + grantSelect + ` WHERE g.organization_id = ? AND g.target_kind = ` + kind + ` AND g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.organization_id = g.organization_id AND tm.user_id = ?)`
}

var (
	// accessCollectionGrantsSQL: the member's and their teams' grants on
	// collections (content_grants_collections_by_principal, 0032d).
	accessCollectionGrantsSQL = accessGranteeSQL(`'collection'`)
	// accessSpaceGrantsSQL: their grants on spaces, at most a number
	// (content_grants_by_space_order, 0029g, or its creation-ordered twin).
	accessSpaceGrantsSQL = accessGranteeSQL(`'space'`) + ` LIMIT ?`
)

// accessSpaceGrantsMax is the space grants a cached access holds at most.
func accessSpaceGrantsMax(opt int) int {
	switch {
	case opt == 0:
		return DefaultAccessSpaceGrants
	case opt < 0:
		return 0
	}
	return opt
}

// SetAccessSpaceGrants sets the number of space grants a cached access
// holds at most, as Options.AccessSpaceGrants does (0: the default;
// negative: none). Entries cached before stay: held whole or partial,
// either answers the same. For tests, which check both paths.
func (db *DB) SetAccessSpaceGrants(n int) {
	db.spaceGrantsMax.Store(int64(accessSpaceGrantsMax(n)))
}

// readAccessGrants reads userID's grants in orgID for AccessData: every
// collection grant, and the space grants when there are at most max of
// them (partial otherwise, with none of them).
func readAccessGrants(ctx context.Context, q queryer, orgID, userID string, max int) (grants []ContentGrant, partial bool, err error) {
	if grants, err = scanGrants(q.QueryContext(ctx, accessCollectionGrantsSQL, orgID, userID, orgID, userID)); err != nil {
		return nil, false, err
	}
	spaces, err := scanGrants(q.QueryContext(ctx, accessSpaceGrantsSQL, orgID, userID, orgID, userID, max+1))
	if err != nil {
		return nil, false, err
	}
	if len(spaces) > max {
		return grants, true, nil
	}
	return append(grants, spaces...), false, nil
}

// accessSize estimates the bytes an AccessData holds of its own (the tree
// is shared by the organization's entries and counted in treeCache).
func accessSize(a AccessData) int {
	n := 256 + len(a.UserID) + 48*len(a.Teams)
	for _, t := range a.Teams {
		n += len(t)
	}
	for _, g := range a.Grants {
		n += 120 + len(g.TargetID) + len(g.PrincipalID) + len(g.Role)
	}
	return n
}

// SpaceGrantsAmong is the grants on spaces among spaceIDs in orgID to
// userID or to one of teams (the member's teams as their AccessData reads
// them): primary-key reads of content_grants, one statement; more than
// MaxTargetLookup ids are refused. For a member whose AccessData is
// SpaceGrantsPartial.
func (db *DB) SpaceGrantsAmong(ctx context.Context, orgID, userID string, teams, spaceIDs []string) ([]ContentGrant, error) {
	if len(spaceIDs) == 0 {
		return nil, nil
	}
	if len(spaceIDs) > MaxTargetLookup {
		return nil, fmt.Errorf("storage: %d spaces asked about at once (at most %d)", len(spaceIDs), MaxTargetLookup)
	}
	if len(teams) > inListMax {
		return nil, fmt.Errorf("storage: %d teams in one lookup (at most %d)", len(teams), inListMax)
	}
	args := append(anySlice(spaceIDs), orgID, userID)
	who := `(g.principal_kind = 'user' AND g.principal_id = ?)`
	if len(teams) > 0 {
		who = `(` + who + ` OR (g.principal_kind = 'team' AND g.principal_id IN (` + placeholders(len(teams)) + `)))`
		args = append(args, anySlice(teams)...)
	}
	return scanGrants(db.r().QueryContext(ctx, grantSelect+` WHERE g.target_kind = 'space' AND g.target_id IN (`+placeholders(len(spaceIDs))+
		`) AND g.organization_id = ? AND `+who, args...)) // variable arity: not cached
}

// spaceGrantPrincipals lists, for PrimeAccess, the principals among users
// and their teams whose space grants the users' AccessData hold: those of
// users with at most max space grants in all (their own and their
// teams'), counted in one statement. partial names the others.
func spaceGrantPrincipals(ctx context.Context, q queryer, orgID string, users []string, teams map[string][]string, max int) (held map[[2]string]bool, partial map[string]bool, err error) {
	in := placeholders(len(users))
	args := append(append(append([]any{orgID}, anySlice(users)...), orgID), anySlice(users)...)
	rows, err := q.QueryContext(ctx, `SELECT g.principal_kind, g.principal_id, COUNT(*) FROM content_grants g WHERE g.organization_id = ? AND g.target_kind = 'space' AND (
 (g.principal_kind = 'user' AND g.principal_id IN (`+in+`)) OR
 (g.principal_kind = 'team' AND g.principal_id IN (SELECT tm.team_id FROM team_members tm WHERE tm.organization_id = ? AND tm.user_id IN (`+in+`))))
 GROUP BY g.principal_kind, g.principal_id`, args...) // variable arity: not cached
	if err != nil {
		return nil, nil, err
	}
	count := map[[2]string]int{}
	for rows.Next() {
		var kind, id string
		var n int
		if err := rows.Scan(&kind, &id, &n); err != nil {
			rows.Close()
			return nil, nil, err
		}
		count[[2]string{kind, id}] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	held, partial = map[[2]string]bool{}, map[string]bool{}
	for _, u := range users {
		n := count[[2]string{"user", u}]
		for _, t := range teams[u] {
			n += count[[2]string{"team", t}]
		}
		if n > max {
			partial[u] = true
			continue
		}
		held[[2]string{"user", u}] = true
		for _, t := range teams[u] {
			held[[2]string{"team", t}] = true
		}
	}
	return held, partial, nil
}

// heldPrincipals splits held into user and team ids (for IN lists).
func heldPrincipals(held map[[2]string]bool) (users, teams []string) {
	for p := range held {
		if p[0] == "user" {
			users = append(users, p[1])
		} else {
			teams = append(teams, p[1])
		}
	}
	return users, teams
}
