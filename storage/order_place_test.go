package storage

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// orderModel is the expected content tree: each level's items in order,
// trashed spaces kept in place (a restore brings them back there).
type orderModel struct {
	children map[string][]ContentRef // parent id ("" top level) -> items in order
	parentOf map[ContentRef]string
	trashed  map[string]bool
}

func (m *orderModel) live(parent string) []ContentRef {
	var out []ContentRef
	for _, r := range m.children[parent] {
		if !m.trashed[r.ID] {
			out = append(out, r)
		}
	}
	return out
}

func (m *orderModel) remove(r ContentRef) {
	p := m.parentOf[r]
	m.children[p] = slices.DeleteFunc(m.children[p], func(x ContentRef) bool { return x == r })
}

// insert puts r under parent right after the item after, right before the
// item before, or at the end (past trashed items too).
func (m *orderModel) insert(r ContentRef, parent string, at Placement) {
	list := m.children[parent]
	i := len(list)
	switch {
	case at.After != nil:
		i = slices.Index(list, *at.After) + 1
	case at.Before != nil:
		i = slices.Index(list, *at.Before)
	}
	m.children[parent] = slices.Insert(list, i, r)
	m.parentOf[r] = parent
}

// preorder is the live tree in order, as "kind:id".
func (m *orderModel) preorder(parent string, out []string) []string {
	for _, r := range m.live(parent) {
		out = append(out, r.Kind+":"+r.ID)
		if r.Kind == KindCollection {
			out = m.preorder(r.ID, out)
		}
	}
	return out
}

// storedOrder is the organization's live tree in stored (sort key) order.
func storedOrder(t *testing.T, db *DB, org string) []string {
	t.Helper()
	ids, err := queryIDs(db.r(), `SELECT k FROM (
 SELECT 'collection:' || id AS k, sort_key, id FROM collections WHERE organization_id = ?
 UNION ALL SELECT 'space:' || id, sort_key, id FROM spaces WHERE organization_id = ? AND deleted_at IS NULL) x ORDER BY sort_key, id`, org, org)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestPlacementKeepsOrder runs random creates, moves (before, after, both,
// at the end, across levels), trashes and restores against a model of the
// tree, and checks after each that the stored order (sort keys from the
// fractional positions) is the model's, and that refusals (no change, a
// position that is not an adjacent sibling) match it too.
func TestPlacementKeepsOrder(t *testing.T) {
	ctx := context.Background()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", NewID())
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	m := &orderModel{children: map[string][]ContentRef{}, parentOf: map[ContentRef]string{}, trashed: map[string]bool{}}
	ptr := func(p string) *string {
		if p == "" {
			return nil
		}
		return &p
	}
	var cols, spaces []ContentRef
	rng := rand.New(rand.NewPCG(3, 5))
	randomParent := func() string {
		if len(cols) == 0 || rng.IntN(3) == 0 {
			return ""
		}
		return cols[rng.IntN(len(cols))].ID
	}
	for step := range 400 {
		op := rng.IntN(10)
		switch {
		case op == 0 || len(spaces) < 3:
			parent := randomParent()
			if rng.IntN(3) == 0 && len(cols) < 12 && parent == "" {
				c := Collection{OrganizationID: org, Title: "C", ParentID: ptr(parent)}
				if err := db.CreateCollection(ctx, &c); err != nil {
					t.Fatal(err)
				}
				r := ContentRef{KindCollection, c.ID}
				cols = append(cols, r)
				m.insert(r, parent, Placement{})
				break
			}
			s := Space{OrganizationID: org, Title: "S", EditMode: "live", Visibility: "private", ParentID: ptr(parent)}
			if err := db.CreateSpace(ctx, &s); err != nil {
				t.Fatal(err)
			}
			r := ContentRef{KindSpace, s.ID}
			spaces = append(spaces, r)
			m.insert(r, parent, Placement{})
		case op == 1:
			r := spaces[rng.IntN(len(spaces))]
			if m.trashed[r.ID] {
				if err := db.RestoreSpace(ctx, r.ID, FromMillis(0)); err != nil {
					t.Fatal(err)
				}
				delete(m.trashed, r.ID)
			} else {
				if _, err := db.TrashSpace(ctx, r.ID); err != nil {
					t.Fatal(err)
				}
				m.trashed[r.ID] = true
			}
		default:
			// Move a live space, or a top-level collection (never under
			// itself: collections only move within the top level here).
			r := spaces[rng.IntN(len(spaces))]
			parent := randomParent()
			if rng.IntN(4) == 0 && len(cols) > 0 {
				r, parent = cols[rng.IntN(len(cols))], ""
				if m.parentOf[r] != "" {
					break
				}
			}
			if m.trashed[r.ID] {
				break
			}
			old := m.parentOf[r]
			dest := slices.DeleteFunc(slices.Clone(m.live(parent)), func(x ContentRef) bool { return x == r })
			var at Placement
			if len(dest) > 0 {
				i := rng.IntN(len(dest))
				switch rng.IntN(4) {
				case 0:
					at.Before = &dest[i]
				case 1:
					at.After = &dest[i]
				case 2:
					if i+1 < len(dest) {
						at.After, at.Before = &dest[i], &dest[i+1]
					}
				}
			}
			// What the model expects: no change when the item would keep
			// its parent and its rank among the live items.
			before := slices.Clone(m.live(old))
			saved := slices.Clone(m.children[old])
			m.remove(r)
			m.insert(r, parent, at)
			noChange := old == parent && slices.Equal(before, m.live(parent))
			var err error
			if r.Kind == KindSpace {
				err = db.MoveSpace(ctx, r.ID, ptr(parent), at)
			} else {
				err = db.MoveCollection(ctx, r.ID, ptr(parent), at)
			}
			switch {
			case noChange && errors.Is(err, ErrNoChange):
				m.children[old] = saved // nothing moved (trashed items stay where they were)
				m.parentOf[r] = old
			case noChange || err != nil:
				t.Fatalf("step %d: move %v to %q at %+v: %v (model expects no change: %v)", step, r, parent, at, err, noChange)
			}
		}
		if got, want := storedOrder(t, db, org), m.preorder("", nil); !slices.Equal(got, want) {
			t.Fatalf("step %d: stored order differs from the model\n got %v\nwant %v", step, got, want)
		}
	}
	// A position naming something that is not an adjacent live sibling.
	live := m.live("")
	if len(live) >= 3 {
		err := db.MoveSpace(ctx, spaces[0].ID, nil, Placement{After: &live[0], Before: &live[2]})
		if !errors.Is(err, ErrBadPosition) && !errors.Is(err, ErrNoChange) {
			t.Fatalf("non-adjacent after/before: %v", err)
		}
	}
	if err := db.MoveSpace(ctx, spaces[0].ID, nil, Placement{Before: &ContentRef{KindSpace, "nope"}}); !errors.Is(err, ErrBadPosition) {
		t.Fatalf("unknown sibling: %v", err)
	}
}

// TestConcurrentCreatesGetDistinctPositions creates spaces from many
// goroutines at once in one collection and at the top level: every one
// gets a position of its own, in commit order after those before it.
func TestConcurrentCreatesGetDistinctPositions(t *testing.T) {
	ctx := context.Background()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", NewID())
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	c := Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, &c); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				s := Space{OrganizationID: org, Title: "S", EditMode: "live", Visibility: "private"}
				if (w+i)%2 == 0 {
					s.ParentID = &c.ID
				}
				if err := db.CreateSpace(ctx, &s); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, level := range []string{`parent_id = '` + c.ID + `'`, `parent_id IS NULL`} {
		rows, err := db.r().QueryContext(ctx, `SELECT position, created_at FROM (SELECT position, created_at, id FROM spaces WHERE organization_id = ? AND `+level+`
 UNION ALL SELECT position, created_at, id FROM collections WHERE organization_id = ? AND `+level+`) x ORDER BY position, id`, org, org)
		if err != nil {
			t.Fatal(err)
		}
		var pos []string
		var last int64
		for rows.Next() {
			var p string
			var at int64
			if err := rows.Scan(&p, &at); err != nil {
				t.Fatal(err)
			}
			if at < last {
				t.Errorf("%s: position order is not creation order", level)
			}
			last = at
			if validateOrderKey(p) != nil {
				t.Errorf("%s: invalid position %q", level, p)
			}
			pos = append(pos, p)
		}
		rows.Close()
		if len(slices.Compact(slices.Clone(pos))) != len(pos) || len(pos) < 60 {
			t.Errorf("%s: %d positions, some shared: %v", level, len(pos), pos)
		}
	}
}

// TestEndPositionAgreesWithNeighbour: the one-statement end of a level
// (endPosition, used by every create) is the last sibling neighbour finds,
// at the top level and in a collection, trashed spaces included, and ""
// for an empty level.
func TestEndPositionAgreesWithNeighbour(t *testing.T) {
	ctx := context.Background()
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := db.CreateOrganizationWithAdmin(ctx, "Org", "a@example.com", "A", NewID())
	if err != nil {
		t.Fatal(err)
	}
	org := b.Organization.ID
	c := Collection{OrganizationID: org, Title: "C"}
	if err := db.CreateCollection(ctx, &c); err != nil {
		t.Fatal(err)
	}
	empty := Collection{OrganizationID: org, Title: "E"}
	if err := db.CreateCollection(ctx, &empty); err != nil {
		t.Fatal(err)
	}
	var last Space
	for i := range 6 {
		s := Space{OrganizationID: org, Title: "S", Visibility: "private", EditMode: "live"}
		if i%2 == 1 {
			s.ParentID = &c.ID
		}
		if err := db.CreateSpace(ctx, &s); err != nil {
			t.Fatal(err)
		}
		last = s
	}
	if ok, err := db.TrashSpace(ctx, last.ID); err != nil || !ok {
		t.Fatalf("trash: %v %v", ok, err)
	}
	for _, parent := range []*string{nil, &c.ID, &empty.ID} {
		err := db.Write(ctx, func(tx *Tx) error {
			got, gotKey, err := endPosition(tx, org, parent)
			if err != nil {
				return err
			}
			if wantKey, err := parentSortKey(tx, parent); err != nil || gotKey != wantKey {
				t.Errorf("parent %v: endPosition's parent key %q, parentSortKey %q (%v)", parent, gotKey, wantKey, err)
			}
			s, ok, err := neighbour(tx, org, parent, "", "", siblingSide{before: true}, ContentRef{})
			if err != nil {
				return err
			}
			if want := map[bool]string{true: s.Pos}[ok]; got != want {
				t.Errorf("parent %v: endPosition %q, neighbour %q", parent, got, want)
			}
			if parent == &empty.ID && got != "" {
				t.Errorf("empty collection: endPosition %q", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	missing := "nosuchcollection0000"
	err = db.Write(ctx, func(tx *Tx) error {
		_, _, err := endPosition(tx, org, &missing)
		return err
	})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("endPosition under a missing collection: %v, want ErrNotFound", err)
	}
}
