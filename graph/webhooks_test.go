package graph

import (
	"strings"
	"testing"

	"docsapi/apierr"
	"docsapi/storage"
)

// Subscriptions name the first wrong event as events[i].
func TestCheckWebhookEvents(t *testing.T) {
	if err := checkWebhookEvents(storage.WebhookEvents); err != nil {
		t.Fatalf("the documented set is refused: %v", err)
	}
	for _, c := range []struct {
		events []string
		field  string
	}{
		{nil, "events"}, {[]string{}, "events"}, {[]string{"space.created", "space.created"}, "events[1]"},
		{[]string{"page.changed", "Page.Changed"}, "events[1]"}, {[]string{"ping"}, "events[0]"},
		{[]string{"change_request.opened"}, "events[0]"}, {make([]string, 33), "events"},
	} {
		err := checkWebhookEvents(c.events)
		e, ok := apierr.As(err)
		if !ok || e.Status != 400 || !strings.HasPrefix(e.Message, c.field+":") && !strings.Contains(e.Message, c.field) {
			t.Errorf("%q: %v (want a 400 naming %s)", c.events, err, c.field)
		}
	}
	// Recorded actions map onto the documented names.
	for action, event := range map[string]string{"change_request.merged": "change-request.merged", "member.role_changed": "member.role-changed", "space.created": "space.created"} {
		if got := storage.WebhookEventName(action); got != event || !storage.IsWebhookEvent(got) {
			t.Errorf("%s -> %s, want documented %s", action, got, event)
		}
	}
}
