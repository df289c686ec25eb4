package storage

import (
	"database/sql/driver"
	"testing"
)

// pgArgs makes text PostgreSQL can hold of strings given by value and by
// pointer (optional fields reach the driver as *string: pgx checks its own
// arguments), and leaves nil pointers and other values alone.
func TestPgArgsText(t *testing.T) {
	bad, good := "a\x00b\xff", "fine"
	var none *string
	args := pgArgs([]driver.NamedValue{{Value: bad}, {Value: &bad}, {Value: &good}, {Value: none}, {Value: true}, {Value: []byte("\x00")}})
	want := []any{"a\uFFFDb\uFFFD", "a\uFFFDb\uFFFD", "fine", none, int64(1)}
	for i, w := range want {
		if args[i].Value != w {
			t.Errorf("argument %d: %#v, want %#v", i, args[i].Value, w)
		}
	}
	if b, ok := args[5].Value.([]byte); !ok || string(b) != "\x00" {
		t.Errorf("bytes changed: %#v", args[5].Value)
	}
	if bad != "a\x00b\xff" {
		t.Error("the caller's string changed")
	}
}
