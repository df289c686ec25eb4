package graph

import (
	"fmt"
	"slices"
	"testing"

	"docsapi/storage"
)

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
