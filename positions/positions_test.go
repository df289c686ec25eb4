package positions

import (
	"math/rand/v2"
	"slices"
	"testing"
)

const (
	testStep  = 1 << 20
	testLimit = 999_999_999_999
)

func increasing(t *testing.T, pos []int, limit int) {
	t.Helper()
	for i, p := range pos {
		if p <= 0 || p > limit || (i > 0 && p <= pos[i-1]) {
			t.Fatalf("positions %v not strictly increasing within (0, %d]", pos, limit)
		}
	}
}

func differing(a, b []int) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// A move or an insert into a gapped list changes the one item's position.
func TestGappedChangesOnlyWhatMoved(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for round := range 500 {
		n := 1 + rng.IntN(40)
		var list []int
		for i := range n {
			list = append(list, (i+1)*testStep)
		}
		from, to := rng.IntN(n), rng.IntN(n)
		item := list[from]
		list = slices.Insert(slices.Delete(list, from, from+1), to, item)
		want := 0
		if from != to {
			want = 1
		}
		if round%3 == 0 {
			list = slices.Insert(list, rng.IntN(len(list)+1), 0)
			want++
		}
		pos := Gapped(list, testStep, testLimit)
		increasing(t, pos, testLimit)
		if got := differing(list, pos); got > want {
			t.Fatalf("round %d: %d positions changed for %d moved items (%v -> %v)", round, got, want, list, pos)
		}
	}
}

// Lists numbered without gaps (1, 2, 3, ...) and lists whose gaps ran out
// are numbered again, then moves are cheap again.
func TestGappedRenumbersWhenNoGap(t *testing.T) {
	pos := Gapped([]int{4, 1, 2, 3}, testStep, testLimit)
	if !slices.Equal(pos, []int{testStep, 2 * testStep, 3 * testStep, 4 * testStep}) {
		t.Fatalf("numbered again: %v", pos)
	}
	// Moving the last item to the front again and again halves the first
	// gap until it is gone.
	renumbered := 0
	for range 100 {
		moved := append([]int{pos[len(pos)-1]}, pos[:len(pos)-1]...)
		next := Gapped(moved, testStep, testLimit)
		increasing(t, next, testLimit)
		if differing(moved, next) > 1 {
			renumbered++
		}
		pos = next
	}
	if renumbered == 0 || renumbered > 10 {
		t.Fatalf("%d renumberings in 100 moves to the front", renumbered)
	}
}

// Items inserted again and again at one place use the gap there up; then
// a window of neighbours is spread again, not the list: over 100 inserts
// into a list of 1,000 the items changed besides the new ones are a few per
// insert (numbering the list again every 16 inserts: some 60), the largest
// window a quarter of the list at most (it grows with the items inserted
// there, not with the list).
func TestGappedSpreadsAWindowWhereTheGapRanOut(t *testing.T) {
	pos := make([]int, 1000)
	for i := range pos {
		pos[i] = (i + 1) * testStep
	}
	spread, most, total := 0, 0, 0
	for range 100 {
		stored := slices.Insert(slices.Clone(pos), 3, 0)
		next := Gapped(stored, testStep, testLimit)
		increasing(t, next, testLimit)
		changed := differing(stored, next) - 1 // the new item
		if changed > 0 {
			spread++
		}
		most, total = max(most, changed), total+changed
		pos = next
	}
	if spread == 0 || total > 10*100 || most > len(pos)/4 {
		t.Fatalf("%d inserts spread a window, changing %d items in all, %d at most, of %d", spread, total, most, len(pos))
	}
}

// Appending after a position near the limit numbers the list again.
func TestGappedStaysUnderTheLimit(t *testing.T) {
	pos := Gapped([]int{testLimit - 5, 0}, testStep, testLimit)
	increasing(t, pos, testLimit)
}

// Whatever the stored positions, the answer is strictly increasing, within
// the limit, and keeps every stored position of an increasing run.
func FuzzGapped(f *testing.F) {
	f.Add([]byte{3, 1, 2, 0, 9}, uint16(16))
	f.Add([]byte{}, uint16(1))
	f.Fuzz(func(t *testing.T, raw []byte, step uint16) {
		if len(raw) > 200 || step == 0 {
			return
		}
		stored := make([]int, len(raw))
		for i, b := range raw {
			stored[i] = int(b) * int(step) / 4
		}
		limit := 256 * int(step) * (len(raw) + 2)
		pos := Gapped(stored, int(step), limit)
		if len(pos) != len(stored) {
			t.Fatalf("%d positions for %d items", len(pos), len(stored))
		}
		increasing(t, pos, limit)
	})
}

// Between gives a new item the position Gapped gives it among kept
// neighbours, and refuses where Gapped would number the list again.
func TestBetweenIsGappedOfOneNewItem(t *testing.T) {
	const step, limit = 8, 1000
	for _, c := range [][2]int{{0, 0}, {0, 8}, {8, 0}, {8, 16}, {8, 9}, {0, 1}, {996, 0}, {8, 24}} {
		low, next := c[0], c[1]
		var stored []int
		at := 0
		if low > 0 {
			stored, at = append(stored, low), 1
		}
		stored = append(stored, 0)
		if next > 0 {
			stored = append(stored, next)
		}
		want := Gapped(stored, step, limit)
		renumbered := (low > 0 && want[0] != low) || (next > 0 && want[len(want)-1] != next)
		got, ok := Between(low, next, step, limit)
		if ok == renumbered || (ok && got != want[at]) {
			t.Errorf("Between(%d, %d) = %d, %v; Gapped %v gives %v", low, next, got, ok, stored, want)
		}
	}
}
