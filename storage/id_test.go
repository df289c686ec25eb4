package storage

import (
	"regexp"
	"testing"
)

// TestTimedID: a timed id has NewID's shape, sorts by its time whatever its
// random half, and two made in the same millisecond differ.
func TestTimedID(t *testing.T) {
	shape := regexp.MustCompile(`^[a-z2-7]{20}$`)
	prev := ""
	for _, ms := range []int64{0, 1, 31, 32, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 1 << 49} {
		a, b := timedID(ms), timedID(ms)
		if !shape.MatchString(a) || a == b || a[:10] != b[:10] {
			t.Fatalf("ms %d: %q %q", ms, a, b)
		}
		if prev != "" && !(prev[:10] < a[:10] && prev < a) {
			t.Fatalf("ms %d: %q does not sort after %q", ms, a, prev)
		}
		prev = a
	}
	if id := NewTimedID(); !shape.MatchString(id) || !(id > timedID(1_700_000_000_000)) {
		t.Fatalf("NewTimedID %q", id)
	}
}
