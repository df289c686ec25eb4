package storage

import (
	"context"
	"slices"
	"strings"
)

// visibleSpaceRanges is a member's view of an organization's spaces (in
// tree order) as ordered index ranges to merge (merged.go): per class, the
// spaces of each of its collections and the top-level ones, filtered by the
// class's kinds; and the spaces granted to the member and to each of their
// teams. With f.ParentID, the same ranges cut to the spaces directly in
// that collection. nil when the view is not a member's (everything, or a
// selection of ids), which the scan serves.
//
// A space sits in one collection (or at the top level), each collection in
// one class, and the class ranges leave out the visibilities read as ranges
// of their own (Everywhere), so those ranges are disjoint; a granted space
// can also be in one of them and in the range of each principal granted
// it, hence MaxDup.
func visibleSpaceRanges(f SpaceFilter) *mergedList {
	v := f.Visible
	if m := installationSpaceRange(f); m != nil {
		return m
	}
	if v == nil || v.Grantee == nil || len(v.IDs) > 0 || f.ByCreation && f.ParentID != nil {
		return nil
	}
	// The order: the tree's (sort keys), or creation (f.ByCreation, a
	// member's spaces: the same ranges from the creation-ordered indexes
	// of migration 0030h).
	order, grantOrder, grantCols, sortOrd := "s.sort_key", "g.space_key", grantedSpaceCols, spaceSortOrd
	if f.ByCreation {
		order, grantOrder, grantCols, sortOrd = "s.created_at", "g.space_created", grantedCreatedCols, spaceCreatedOrd
	}
	// also is the second view every range is filtered by (AlsoVisible).
	also := ""
	if f.AlsoVisible != nil {
		also = " AND " + f.AlsoVisible.sql()
	}
	m := &mergedList{SortOrd: sortOrd, IDOrd: 1,
		Whole: countPart{Query: `SELECT COALESCE(SUM(c.live), 0) FROM space_class_counts c WHERE c.organization_id = ?`, Args: []any{f.OrganizationID}}}
	// within bounds the organization-wide ranges (Everywhere, grants) to
	// the spaces directly in f.ParentID: the sort keys under a collection
	// are its own key, '/', then more, a range of the same indexes.
	within := func(key string) (string, []any) { return "", nil }
	if f.ParentID != nil {
		m.Whole.Query += ` AND c.parent_id = ?`
		m.Whole.Args = append(m.Whole.Args, *f.ParentID)
		p := *f.ParentID
		within = func(key string) (string, []any) {
			// "|| ''": the parent is a filter, so that the planner reads
			// the range of the open or granted spaces under the collection
			// rather than every space of the collection (spaces_by_parent).
			return ` AND ` + key + ` >= (SELECT pc.sort_key || '/' FROM collections pc WHERE pc.id = ?) AND ` + key +
				` < (SELECT pc.sort_key || '0' FROM collections pc WHERE pc.id = ?) AND s.parent_id || '' = ?`, []any{p, p, p}
		}
	}
	everywhere := map[string]bool{}
	for _, vis := range v.Everywhere {
		everywhere[vis] = true
		// One range for the whole organization (spaces_by_open_visibility
		// for public and unlisted, migration 0029g).
		cond, args := within("s.sort_key")
		m.Arms = append(m.Arms, listArm{Select: spaceCols,
			From: `FROM spaces s` + spaceGitJoin + ` WHERE s.organization_id = ? AND s.visibility = ` + sqlString(vis) + ` AND s.deleted_at IS NULL` + cond + also,
			Args: append([]any{f.OrganizationID}, args...), SortCol: order, IDCol: "s.id"})
	}
	for _, cl := range v.Classes {
		if f.ParentID != nil {
			// One collection's list: its own class only.
			if !slices.Contains(cl.Parents, *f.ParentID) {
				continue
			}
			cl = SpaceClass{Parents: []string{*f.ParentID}, Kinds: cl.Kinds}
		}
		// The class less what those ranges give: no range at all when
		// nothing else is seen there (a guest's view of every collection).
		kinds := ""
		switch rest := withoutVisibilities(cl.Kinds, everywhere); {
		case len(cl.Kinds) == 0 && len(v.Everywhere) > 0:
			vis := make([]string, len(v.Everywhere))
			for i, x := range v.Everywhere {
				vis[i] = sqlString(x)
			}
			kinds = " AND s.visibility NOT IN (" + strings.Join(vis, ", ") + ")"
		case len(cl.Kinds) == 0:
		case len(rest) == 0:
			continue
		default:
			kinds = " AND " + kindsCond(spaceRowCols, rest)
		}
		if cl.TopLevel {
			// At the top level a space's sort key is its position
			// (concatKey with no parent key), so the order of
			// spaces_by_level is the list's.
			arm := listArm{Select: topLevelSpaceCols,
				From: `FROM spaces s` + spaceGitJoin + ` WHERE s.organization_id = ? AND s.parent_id IS NULL AND s.deleted_at IS NULL` + kinds + also,
				Args: []any{f.OrganizationID}, SortCol: "s.position", IDCol: "s.id"}
			if f.ByCreation {
				arm.Select, arm.SortCol = spaceCols, order
			}
			m.Arms = append(m.Arms, arm)
		}
		for _, p := range cl.Parents {
			m.Arms = append(m.Arms, listArm{Select: spaceCols,
				From: `FROM spaces s` + spaceGitJoin + ` WHERE s.parent_id = ` + sqlString(p) + ` AND s.deleted_at IS NULL AND s.organization_id = ?` + kinds + also,
				Args: []any{f.OrganizationID}, SortCol: order, IDCol: "s.id"})
		}
	}
	principals := [][2]string{{"user", v.Grantee.UserID}}
	for _, t := range v.Grantee.TeamIDs {
		principals = append(principals, [2]string{"team", t})
	}
	for _, p := range principals {
		cond, args := within("g.space_key")
		m.Arms = append(m.Arms, listArm{Select: grantCols,
			From: `FROM content_grants g CROSS JOIN spaces s` + spaceGitJoin + ` WHERE g.organization_id = ? AND g.principal_kind = '` + p[0] + `' AND g.principal_id = ` + sqlString(p[1]) +
				` AND g.target_kind = 'space' AND s.id = g.target_id AND s.organization_id = g.organization_id AND s.deleted_at IS NULL` + cond + also,
			Args: append([]any{f.OrganizationID}, args...), SortCol: grantOrder, IDCol: "g.target_id"})
	}
	m.MaxDup = 1 + len(principals)
	return m
}

// spaceSortOrd is the position of s.sort_key in spaceCols.
var spaceSortOrd = 1 + strings.Count(spaceCols[:strings.Index(spaceCols, "s.sort_key")], ",")

// grantedSpaceCols is spaceCols with the id and the sort key read from the
// grant (equal to the space's: g.target_id = s.id, and space_key is kept
// equal to sort_key), so that the grant index gives the range its order.
var grantedSpaceCols = strings.Replace(strings.Replace(spaceCols, "s.id,", "g.target_id,", 1), "s.sort_key,", "g.space_key,", 1)

// spaceCreatedOrd is the position of s.created_at in spaceCols.
var spaceCreatedOrd = 1 + strings.Count(spaceCols[:strings.Index(spaceCols, "s.created_at")], ",")

// grantedCreatedCols is spaceCols with the id and the creation time read
// from the grant (space_created is kept equal to created_at), for the
// creation-ordered ranges.
var grantedCreatedCols = strings.Replace(strings.Replace(spaceCols, "s.id,", "g.target_id,", 1), "s.created_at,", "g.space_created,", 1)

// withoutVisibilities is kinds less the visibilities in drop.
func withoutVisibilities(kinds []SpaceKinds, drop map[string]bool) []SpaceKinds {
	var out []SpaceKinds
	for _, k := range kinds {
		var vis []string
		for _, x := range k.Visibilities {
			if !drop[x] {
				vis = append(vis, x)
			}
		}
		if len(vis) > 0 {
			k.Visibilities = vis
			out = append(out, k)
		}
	}
	return out
}

// topLevelSpaceCols is spaceCols with the position in place of the sort
// key: the same value at the top level, in the order of spaces_by_level.
var topLevelSpaceCols = strings.Replace(spaceCols, "s.sort_key,", "s.position,", 1)

// installationOnly tells whether v names exactly an installation's space
// targets (an installation token's view).
func installationOnly(v *SpaceVisibility) bool {
	return v != nil && v.Installation != "" && v.Grantee == nil && len(v.IDs) == 0 && len(v.Classes) == 0 && len(v.Everywhere) == 0
}

// installationTargetsFrom is the FROM ... WHERE of an installation's live
// space targets in f's organization (and parent), joined to the spaces.
func installationTargetsFrom(f SpaceFilter) (string, []any) {
	from := `FROM integration_target_installations t CROSS JOIN spaces s` + spaceGitJoin + ` WHERE t.installation_id = ? AND t.kind = 'space'
 AND s.id = t.target_id AND s.organization_id = ? AND s.deleted_at IS NULL`
	args := []any{f.Visible.Installation, f.OrganizationID}
	if f.ParentID != nil {
		from += ` AND s.parent_id = ?`
		args = append(args, *f.ParentID)
	}
	if f.AlsoVisible != nil {
		from += ` AND ` + f.AlsoVisible.sql()
	}
	return from, args
}

// installationSpaceRange is an installation token's list as one ordered
// range: the installation's space targets in the order of their copied
// sort keys (integration_targets_by_space_order, migration 0030j) or, for
// the creation order (a member's spaces), of their copied creation times
// (integration_targets_by_space_created, migration 0031d), each joined to
// its space by primary key. A page reads the page's targets from the cursor
// on, whatever the size of the organization. nil for other views.
func installationSpaceRange(f SpaceFilter) *mergedList {
	if !installationOnly(f.Visible) {
		return nil
	}
	from, args := installationTargetsFrom(f)
	arm, ord := listArm{Select: targetSpaceCols, From: from, Args: args, SortCol: "t.space_key", IDCol: "t.target_id"}, spaceSortOrd
	if f.ByCreation {
		arm.Select, arm.SortCol, ord = targetCreatedCols, "t.space_created", spaceCreatedOrd
	}
	return &mergedList{SortOrd: ord, IDOrd: 1, MaxDup: 1, Arms: []listArm{arm},
		Whole: countPart{Query: `SELECT COALESCE(SUM(c.live), 0) FROM space_class_counts c WHERE c.organization_id = ?`, Args: []any{f.OrganizationID}}}
}

// installationFirst is f with an installation token's view first when f
// sees through two views and the second is that token's (a member's spaces
// asked with an installation token): the intersection is the same, and
// read from the installation's targets, each checked against the member's
// view by primary key, it costs in proportion to the page when the member
// sees most of what the installation covers. The member's ranges filtered
// by the installation would read every space of the member's view the
// installation does not cover (about 99 rows per row kept for an
// installation on 1% of the spaces).
func installationFirst(f SpaceFilter) SpaceFilter {
	if f.Visible != nil && installationOnly(f.AlsoVisible) && !installationOnly(f.Visible) {
		f.Visible, f.AlsoVisible = f.AlsoVisible, f.Visible
	}
	return f
}

// cheaperSideFirst is f with, of a member's view and an installation
// token's seen together (a member's spaces asked with the token), the one
// that names fewer spaces first, by their stored totals (the installation's
// live targets, one row; the member's classes and grants, cached until a
// write): the list reads the first view's ranges and checks each row
// against the other by primary key, so it reads about (first's size /
// both's) rows per row it returns. A member who sees 1% of what an
// installation on most spaces covers is read from their ranges, not from
// the installation's targets they cannot see; a member who sees every
// space, from the installation's. SetMemberSideFirst forces a side (tests).
func (db *DB) cheaperSideFirst(ctx context.Context, f SpaceFilter) (SpaceFilter, error) {
	f = installationFirst(f)
	m := f.AlsoVisible
	if !installationOnly(f.Visible) || m == nil || m.Grantee == nil || len(m.IDs) > 0 || f.ByCreation && f.ParentID != nil {
		return f, nil
	}
	memberFirst := false
	switch side := db.memberSide.Load(); side {
	case sideMember, sideInstallation:
		memberFirst = side == sideMember
	default:
		inst, err := db.countParts(ctx, []countPart{{Query: `SELECT COALESCE(SUM(c.live), 0) FROM installation_space_counts c WHERE c.installation_id = ?`,
			Args: []any{f.Visible.Installation}}})
		if err != nil {
			return f, err
		}
		member, err := db.countParts(ctx, spaceCount(SpaceFilter{OrganizationID: f.OrganizationID, ParentID: f.ParentID, Visible: m}))
		if err != nil {
			return f, err
		}
		memberFirst = member < inst
	}
	if memberFirst {
		f.Visible, f.AlsoVisible = f.AlsoVisible, f.Visible
	}
	return f, nil
}

// The sides SetMemberSideFirst forces (memberSide).
const (
	sideByCount int32 = iota
	sideMember
	sideInstallation
)

// SetMemberSideFirst makes a member's spaces asked with an installation
// token read the member's ranges first (true), the installation's targets
// first (false), or the side that names fewer spaces (nil, the default):
// both give the same pages, which tests check on each side.
func (db *DB) SetMemberSideFirst(member *bool) {
	switch {
	case member == nil:
		db.memberSide.Store(sideByCount)
	case *member:
		db.memberSide.Store(sideMember)
	default:
		db.memberSide.Store(sideInstallation)
	}
}

// countParts adds up parts (each cached under its counter, countCache).
func (db *DB) countParts(ctx context.Context, parts []countPart) (int, error) {
	total := 0
	for _, p := range parts {
		var n int
		if err := db.counts.count(ctx, db.r(), p, &n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// memberThenInstallationCount is the total of a member's view seen
// through an installation token's, read along the member's ranges (each
// filtered by the installation's targets, by primary key): the union of
// the ranges' ids, so a space in several ranges counts once. ok is false
// for other filters.
func memberThenInstallationCount(f SpaceFilter) (parts []countPart, ok bool) {
	if !installationOnly(f.AlsoVisible) || f.Visible == nil || f.Visible.Grantee == nil || len(f.Visible.IDs) > 0 || installationOnly(f.Visible) {
		return nil, false
	}
	m := visibleSpaceRanges(f)
	if m == nil {
		return nil, false
	}
	var arms []string
	var args []any
	for _, a := range m.Arms {
		arms = append(arms, `SELECT `+a.IDCol+` AS id `+a.From)
		args = append(args, a.Args...)
	}
	// COUNT(DISTINCT) over UNION ALL, not UNION: a UNION merges its arms
	// in id order, for which SQLite read every space grant by target.
	return []countPart{{Query: `SELECT COUNT(DISTINCT id) FROM (` + strings.Join(arms, ` UNION ALL `) + `) u`, Args: args}}, true
}

// installationCount is the total of an installation token's list: its
// live space targets, one row of installation_space_counts (migration
// 0030j) for the organization's list; within one collection, or seen
// through a second view, counted along the installation's targets. ok is
// false for other views.
func installationCount(f SpaceFilter) (parts []countPart, ok bool) {
	if !installationOnly(f.Visible) {
		return nil, false
	}
	if f.ParentID == nil && f.AlsoVisible == nil {
		return []countPart{{Query: `SELECT COALESCE(SUM(c.live), 0) FROM installation_space_counts c WHERE c.installation_id = ?`,
			Args: []any{f.Visible.Installation}}}, true
	}
	from, args := installationTargetsFrom(f)
	return []countPart{{Query: `SELECT COUNT(*) ` + from, Args: args}}, true
}

// targetSpaceCols is spaceCols with the id and the sort key read from the
// installation target (equal to the space's: t.target_id = s.id, and
// space_key is kept equal to sort_key), so that the target index gives the
// range its order.
var targetSpaceCols = strings.Replace(strings.Replace(spaceCols, "s.id,", "t.target_id,", 1), "s.sort_key,", "t.space_key,", 1)

// targetCreatedCols is spaceCols with the id and the creation time read
// from the installation target (space_created is kept equal to
// created_at), for the creation-ordered range.
var targetCreatedCols = strings.Replace(strings.Replace(spaceCols, "s.id,", "t.target_id,", 1), "s.created_at,", "t.space_created,", 1)
