package storage

import (
	"errors"
	"testing"
)

// FuzzPageCursor: any page token is the first page, a cursor that encodes
// back to an equivalent one, or ErrBadCursor (a 400), never a panic.
func FuzzPageCursor(f *testing.F) {
	f.Fuzz(func(t *testing.T, token string) {
		c, err := DecodeCursor(token)
		if err != nil {
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("not ErrBadCursor: %v", err)
			}
			return
		}
		if c == nil {
			return
		}
		again, err := DecodeCursor(c.Encode())
		if err != nil || again == nil || again.ID != c.ID {
			t.Fatalf("cursor does not round-trip: %+v -> %+v %v", c, again, err)
		}
	})
}
