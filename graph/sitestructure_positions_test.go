package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"docsapi/storage"
)

// refsAt builds a container whose items have the given stored positions.
func refsAt(stored []int) ([]treeRef, func(treeRef) int) {
	list := make([]treeRef, len(stored))
	byID := map[string]int{}
	for i, p := range stored {
		id := string(rune('a'+i%26)) + string(rune('0'+i/26))
		list[i], byID[id] = treeRef{kindSiteSpace, id}, p
	}
	return list, func(r treeRef) int { return byID[r.id] }
}

func positionsChanged(old, pos []int) int {
	n := 0
	for i := range old {
		if old[i] != pos[i] {
			n++
		}
	}
	return n
}

// A move or an insert into a gapped list changes the one item's position;
// every list comes out strictly increasing whatever it went in as.
func TestPositionsForChangeOnlyWhatMoved(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for round := range 500 {
		n := 1 + rng.IntN(40)
		var old []int
		for i := range n {
			old = append(old, (i+1)*positionStep)
		}
		list, stored := refsAt(old)
		// Move one item elsewhere, or add a new one (position 0).
		from, to := rng.IntN(n), rng.IntN(n)
		item := list[from]
		list = slices.Insert(slices.Delete(list, from, from+1), to, item)
		if round%3 == 0 {
			list = slices.Insert(list, rng.IntN(len(list)+1), treeRef{kindSiteSpace, "new"})
		}
		before := make([]int, len(list))
		for i, r := range list {
			before[i] = stored(r)
		}
		pos := positionsFor(list, stored)
		for i := 1; i < len(pos); i++ {
			if pos[i] <= pos[i-1] {
				t.Fatalf("round %d: positions %v not strictly increasing", round, pos)
			}
		}
		want := 0
		if from != to {
			want = 1
		}
		if round%3 == 0 {
			want++
		}
		if got := positionsChanged(before, pos); got > want {
			t.Fatalf("round %d: %d positions changed for %d moved items (before %v, after %v)", round, got, want, before, pos)
		}
	}
}

// Lists saved before positions were gapped (1, 2, 3, ...) and lists whose
// gaps ran out are renumbered once, then moves are cheap again.
func TestPositionsForRenumberWhenNoGap(t *testing.T) {
	list, stored := refsAt([]int{1, 2, 3, 4})
	list = []treeRef{list[3], list[0], list[1], list[2]}
	pos := positionsFor(list, stored)
	if !slices.Equal(pos, []int{positionStep, 2 * positionStep, 3 * positionStep, 4 * positionStep}) {
		t.Fatalf("renumbered %v", pos)
	}
	// Repeatedly moving the last item to the front halves the first gap until
	// it is gone; every answer stays increasing.
	cur := pos
	renumbered := 0
	for range 100 {
		list, stored = refsAt(cur)
		list = append([]treeRef{list[len(list)-1]}, list[:len(list)-1]...)
		before := make([]int, len(list))
		for i, r := range list {
			before[i] = stored(r)
		}
		next := positionsFor(list, stored)
		if c := positionsChanged(before, next); c > 1 {
			renumbered++
		}
		for i := 1; i < len(next); i++ {
			if next[i] <= next[i-1] {
				t.Fatalf("not increasing: %v", next)
			}
		}
		cur = next
	}
	if renumbered == 0 || renumbered > 10 {
		t.Fatalf("%d renumberings in 100 moves to the front", renumbered)
	}
}

// Positions never pass what a sort key holds: appending at the end of a
// list near the top renumbers it.
func TestPositionsForStayInSortKeys(t *testing.T) {
	list, stored := refsAt([]int{maxPosition - 5})
	list = append(list, treeRef{kindSiteSpace, "new"})
	pos := positionsFor(list, stored)
	if pos[len(pos)-1] > maxPosition || pos[0] >= pos[1] {
		t.Fatalf("positions %v", pos)
	}
}

// A move in a saved structure plans a new position for the moved item only:
// the other site spaces keep theirs (so their rows and sort keys are not
// written again).
func TestPlanMovesOneItem(t *testing.T) {
	var st storage.SiteStructure
	for i := range 30 {
		id := fmt.Sprintf("ss%02d", i)
		st.SiteSpaces = append(st.SiteSpaces, storage.SiteSpace{ID: id, Path: id, Position: (i + 1) * positionStep})
	}
	st.DefaultSiteSpaceID = &st.SiteSpaces[0].ID
	tree := newSiteTree(st)
	if err := tree.move(treeRef{kindSiteSpace, "ss25"}, &treeRef{kindSiteSpace, "ss03"}, nil, "position"); err != nil {
		t.Fatal(err)
	}
	plan := tree.plan()
	var order []string
	moved := 0
	for _, ss := range plan.SiteSpaces {
		order = append(order, ss.ID)
		var was int
		fmt.Sscanf(ss.ID, "ss%d", &was)
		if ss.Position != (was+1)*positionStep {
			moved++
		}
	}
	slices.SortStableFunc(plan.SiteSpaces, func(a, b storage.SiteSpace) int { return a.Position - b.Position })
	var sorted []string
	for _, ss := range plan.SiteSpaces {
		sorted = append(sorted, ss.ID)
	}
	if !slices.Equal(order, sorted) || sorted[3] != "ss25" || sorted[4] != "ss03" {
		t.Fatalf("order by position %v, planned %v", sorted, order)
	}
	if moved != 1 {
		t.Fatalf("%d positions changed for one move", moved)
	}
}
