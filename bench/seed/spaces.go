package seed

import (
	"context"
	"fmt"
	"time"

	"docsapi/auth"
	"docsapi/storage"
)

func init() {
	register("spaces", "spaces to create across a tree of nested collections (n/100 collections, three levels); also a member with role read, team and direct grants (reader_token)", Spaces)
}

// Spaces creates n spaces spread over n/100 collections (or
// Env.Collections) nested three levels
// deep (a tenth at the top level, each with up to three children, and so
// on), one space in twenty at the top level. Default levels and visibilities
// vary, so that a non-admin member sees most but not all of them: every
// tenth collection starting at the fourth has no default access, one space
// in seven has none either, one in ten is in-collection, one in a thousand public
// (every member, guests included, reads those: few, so that the readers of
// seedReaderShapes see close to their share).
//
// It also creates a member with role read and a token ("reader_token"),
// joins them to the first seeded team (when there is one), and grants: the
// team edit on half of the collections without default access, the member
// comment on one space in 97; the second team gets read on one space in 101. "space" is a space three levels down that the
// admin and the reader can both read.
func Spaces(ctx context.Context, e *Env, n int) error {
	nc := max(1, n/100)
	if e.Collections > 0 {
		nc = e.Collections
	}
	top := max(1, nc/10)
	base := time.Now().Add(-time.Duration(n+1) * time.Second).UnixMilli()

	type node struct {
		id, key  string
		parent   int // -1: top level
		depth    int
		inherits bool // default inherit along the whole chain
	}
	cols := make([]node, nc)
	// Positions and sort keys follow storage/order.go: each level's items
	// get consecutive order keys in the order they are added; a child's
	// sort key is its parent's, '/', its own position.
	lastPos := map[int]string{} // parent index (-1: top) -> last position given
	place := func(parent int) (string, string) {
		keys, err := storage.KeysAfter(lastPos[parent], 1)
		if err != nil {
			panic(err) // only past 62^25 siblings
		}
		pos := keys[0]
		lastPos[parent] = pos
		if parent < 0 {
			return pos, pos
		}
		return pos, cols[parent].key + "/" + pos
	}
	colRows := make([][]any, 0, nc)
	for i := range nc {
		parent := -1
		if i >= top {
			parent = (i - top) / 3
		}
		var level any = "inherit"
		switch i % 10 {
		case 3:
			level = nil
		case 7:
			level = "read"
		}
		pos, key := place(parent)
		c := node{id: storage.NewID(), key: key, parent: parent, inherits: level == "inherit"}
		if parent >= 0 {
			c.depth = cols[parent].depth + 1
			c.inherits = c.inherits && cols[parent].inherits
		}
		cols[i] = c
		var pid any
		if parent >= 0 {
			pid = cols[parent].id
		}
		at := base + int64(i)
		colRows = append(colRows, []any{c.id, e.Org, pid, fmt.Sprintf("Collection %03d", i), level, pos, key, at, at})
	}

	// Space rows are made in order (positions are handed out per level as
	// they come) and written in chunks, so a million spaces never sit in
	// memory at once; only their ids do, for the grants.
	ids := make([]string, n)
	for j := range ids {
		ids[j] = storage.NewID()
	}
	sample, sampleDepth := "", -1
	spaceRow := func(j int) (space, revision []any) {
		parent := j % nc
		if j%20 == 0 {
			parent = -1
		}
		visibility := "private"
		switch {
		case j%10 == 1 && parent >= 0:
			visibility = "in-collection"
		case j%1000 == 2:
			visibility = "public"
		}
		var level any = "inherit"
		if j%7 == 0 {
			level = nil
		}
		id, rev := ids[j], storage.NewID()
		pos, key := place(parent)
		var pid any
		if parent >= 0 {
			pid = cols[parent].id
			if level == "inherit" && visibility == "private" && cols[parent].inherits && cols[parent].depth > sampleDepth {
				sample, sampleDepth = id, cols[parent].depth
			}
		}
		at := base + int64(j)*1000
		return []any{id, e.Org, pid, fmt.Sprintf("Space %05d", j), visibility, "live", level, rev, pos, key, at, at},
			[]any{rev, id, "[]", "edits", at}
	}

	secret, hash := auth.NewToken()
	role := "read"
	reader, _, err := e.DB.CreateUserWithToken(ctx, "bench-reader-"+storage.NewID()+"@example.com", "Bench Reader", e.Org, &role, true, hash)
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	var grants [][]any
	if len(e.TeamIDs) > 0 {
		for i := 3; i < nc; i += 20 { // half of the collections without default access
			grants = append(grants, []any{e.Org, "collection", cols[i].id, "team", e.TeamIDs[0], "edit", now})
		}
	}
	if len(e.TeamIDs) > 1 { // members of another team see one space in 101 through it
		for j := 5; j < n; j += 101 {
			grants = append(grants, []any{e.Org, "space", ids[j], "team", e.TeamIDs[1], "read", now})
		}
	}
	for j := 0; j < n; j += 97 {
		grants = append(grants, []any{e.Org, "space", ids[j], "user", reader.ID, "comment", now})
	}
	colIDs := make([]string, nc)
	for i, c := range cols {
		colIDs[i] = c.id
	}
	shapes, err := seedReaderShapes(ctx, e, n, top, colIDs, ids, now)
	if err != nil {
		return err
	}
	grants = append(grants, shapes...)

	err = e.DB.Write(ctx, func(tx *storage.Tx) error {
		if err := batchInsert(tx, ctx, "collections", []string{"id", "organization_id", "parent_id", "title", "default_level", "position", "sort_key", "created_at", "updated_at"}, colRows); err != nil {
			return err
		}
		err := withoutIndexes(tx, ctx, []string{"spaces", "revisions"}, func() error {
			const chunk = 20_000
			for start := 0; start < n; start += chunk {
				spaceRows, revRows := make([][]any, 0, chunk), make([][]any, 0, chunk)
				for j := start; j < min(n, start+chunk); j++ {
					sp, rev := spaceRow(j)
					spaceRows, revRows = append(spaceRows, sp), append(revRows, rev)
				}
				if err := batchInsert(tx, ctx, "spaces", []string{"id", "organization_id", "parent_id", "title", "visibility", "edit_mode", "default_level", "revision_id", "position", "sort_key", "created_at", "updated_at"}, spaceRows); err != nil {
					return err
				}
				if err := batchInsert(tx, ctx, "revisions", []string{"id", "space_id", "parents", "type", "created_at"}, revRows); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(e.TeamIDs) > 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO team_members (team_id, organization_id, user_id, role, added_at) VALUES (?, ?, ?, 'member', ?)`, e.TeamIDs[0], e.Org, reader.ID, now); err != nil {
				return err
			}
		}
		return batchInsert(tx, ctx, "content_grants", []string{"organization_id", "target_kind", "target_id", "principal_kind", "principal_id", "role", "created_at"}, grants)
	})
	if err != nil {
		return err
	}
	// The stored per-member counts (storage keeps them on every API write).
	if err := e.DB.RecountMembers(ctx, e.Org); err != nil {
		return err
	}
	if sample == "" {
		sample = ids[len(ids)-1]
	}
	e.Out["spaces"], e.Out["collections"], e.Out["space"] = n, nc, sample
	// For write benchmarks: two collections the admin creates and moves
	// into, and a space to move back and forth between them.
	e.Out["collection"], e.Out["collection2"] = cols[0].id, cols[min(1, nc-1)].id
	e.Out["move_space"] = ids[min(1, n-1)]
	e.Out["reader"], e.Out["reader_token"] = reader.ID, secret
	return nil
}

// seedReaderShapes creates three readers who see 1%, 10% and 100% of the spaces, each with a
// token in e.Out, and returns their grants (rows of content_grants, written
// with the spaces):
//
//   - reader_few_token, a guest granted read on one space in 100 directly:
//     sees 1% of the spaces, spread over the whole tree;
//   - reader_tenth_token, a guest whose own team is granted read on ten
//     collections without children: sees about 10%, in ten runs of adjacent
//     spaces;
//   - reader_all_token, a member of role read granted read on every
//     top-level collection and on the top-level spaces without default
//     access: sees every space, through a view that is not "everything".
func seedReaderShapes(ctx context.Context, e *Env, n, top int, collectionIDs, ids []string, now int64) ([][]any, error) {
	nc := len(collectionIDs)
	token := func(name string, role *string) (string, error) {
		secret, hash := auth.NewToken()
		u, _, err := e.DB.CreateUserWithToken(ctx, "bench-"+name+"-"+storage.NewID()+"@example.com", "Bench "+name, e.Org, role, true, hash)
		e.Out["reader_"+name], e.Out["reader_"+name+"_token"] = u.ID, secret
		return u.ID, err
	}
	var grants [][]any
	few, err := token("few", nil)
	if err != nil {
		return nil, err
	}
	for j := 50; j < n; j += 100 {
		grants = append(grants, []any{e.Org, "space", ids[j], "user", few, "read", now})
	}
	tenth, err := token("tenth", nil)
	if err != nil {
		return nil, err
	}
	team, err := e.DB.CreateTeam(ctx, e.Org, "Bench tenth", []string{tenth})
	if err != nil {
		return nil, err
	}
	// Collection k has children when some i >= top has (i-top)/3 == k.
	var leaves []int
	for k := range nc {
		if 3*k+top >= nc {
			leaves = append(leaves, k)
		}
	}
	granted := map[int]bool{}
	for i := 0; i < 10 && len(leaves) > 0; i++ {
		k := leaves[i*len(leaves)/10]
		if granted[k] {
			continue // fewer than ten leaves (a small seed): each once
		}
		granted[k] = true
		grants = append(grants, []any{e.Org, "collection", collectionIDs[k], "team", team, "read", now})
	}
	role := "read"
	all, err := token("all", &role)
	if err != nil {
		return nil, err
	}
	for k := range top {
		grants = append(grants, []any{e.Org, "collection", collectionIDs[k], "user", all, "read", now})
	}
	for j := 0; j < n; j += 140 { // top level (j%20 == 0) without default access (j%7 == 0)
		grants = append(grants, []any{e.Org, "space", ids[j], "user", all, "read", now})
	}
	return grants, nil
}
