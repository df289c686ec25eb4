package graph

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"docsapi/apierr"
)

// FuzzAuditFilter: any filter values are either a 400 naming one of the
// filter fields, or a filter whose action, when a prefix, ends with a dot
// and whose bounds are in order; never a panic.
func FuzzAuditFilter(f *testing.F) {
	f.Add("u1", "space.created", "space", "s1", "2026-01-02T03:04:05Z", "2026-01-03T00:00:00.5+02:00", uint8(63))
	f.Add("", "space.", "member", "", "yesterday", "", uint8(0))
	f.Add("u", "space", "a b", "t", "", "2026-13-01T00:00:00Z", uint8(255))
	f.Add("u", "Space.Created", "", "", "", "", uint8(2))
	f.Add("\xff", "space.", "space", "\xfe", "", "", uint8(15))
	f.Add("u", "space.%", "space", "x", "2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z", uint8(51))
	fields := map[string]bool{"actor": true, "action": true, "targetType": true, "targetId": true, "from": true, "to": true}
	f.Fuzz(func(t *testing.T, actor, action, targetType, targetID, from, to string, set uint8) {
		opt := func(bit uint8, v string) *string {
			if set&(1<<bit) == 0 {
				return nil
			}
			return &v
		}
		flt, err := auditFilter(opt(0, actor), opt(1, action), opt(2, targetType), opt(3, targetID), opt(4, from), opt(5, to))
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status != 400 || !fields[e.Field] || !strings.HasPrefix(e.Message, e.Field+": ") {
				t.Fatalf("refusal %v does not name a filter field", err)
			}
			return
		}
		if !utf8.ValidString(flt.ActorID) || !utf8.ValidString(flt.TargetID) {
			t.Fatalf("invalid UTF-8 accepted: %q %q", flt.ActorID, flt.TargetID)
		}
		if flt.ActionPrefix && !strings.HasSuffix(flt.Action, ".") {
			t.Fatalf("action prefix %q does not end with a dot", flt.Action)
		}
		if flt.From != nil && flt.To != nil && flt.To.Before(*flt.From) {
			t.Fatalf("bounds out of order: %v > %v", flt.From, flt.To)
		}
		if a := opt(1, action); a != nil && !strings.HasPrefix(flt.Action, *a) {
			t.Fatalf("action %q became %q", *a, flt.Action)
		}
	})
}
