package storage

import (
	"fmt"
	"testing"

	"docsapi/apierr"
)

// A storage conflict that reaches the API unnamed is a 409, never a 500.
func TestConflictsAreNeverInternal(t *testing.T) {
	for _, err := range []error{ErrBasenameTaken, ErrHostnameTaken, ErrExists, ErrAlreadyInstalled, ErrStale} {
		wrapped := fmt.Errorf("creating: %w", err)
		if s := apierr.Status(wrapped); s != 409 {
			t.Errorf("%v: status %d", err, s)
		}
	}
	if s := apierr.Status(ErrNotFound); s != 500 {
		t.Errorf("not found unnamed: %d (resolvers name it)", s)
	}
}
