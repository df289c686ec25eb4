package storage

import "testing"

// FuzzAuditTimeBounds: the audit list reads a time range as an id range,
// so for any times (a from/to filter may be any RFC 3339 date, before 1970
// too) the bounds keep their order, and an entry made at a millisecond in
// the ids' range is inside [floor(ms), floor(ms+1)) and its id reads back
// as that millisecond.
func FuzzAuditTimeBounds(f *testing.F) {
	f.Add(int64(0), int64(1))
	f.Add(int64(1_790_000_000_000), int64(1_790_000_000_001))
	f.Add(int64(-62135596800000), int64(253402300799999)) // years 1 and 9999
	f.Add(int64(maxTimedMillis), int64(-1))
	f.Fuzz(func(t *testing.T, a, b int64) {
		if a > b {
			a, b = b, a
		}
		if fa, fb := timedIDFloor(a), timedIDFloor(b); len(fa) != 10 || fa > fb {
			t.Fatalf("floor(%d) = %q, floor(%d) = %q", a, fa, b, fb)
		}
		if a < 0 || a >= maxTimedMillis {
			return
		}
		id := timedID(a)
		if timedIDMillis(id) != a || id < timedIDFloor(a) || id >= timedIDFloor(a+1) {
			t.Fatalf("id %q of %d reads %d, bounds [%q, %q)", id, a, timedIDMillis(id), timedIDFloor(a), timedIDFloor(a+1))
		}
	})
}
