package rest_test

import (
	"strings"
	"testing"
	"time"

	"docsapi/apitest"
)

// TestSAMLValidationUsesTheServerClock: answers made normally by the
// identity provider are judged against the server's injectable clock, so
// moving that clock makes them expired or not yet valid (nothing crafted).
func TestSAMLValidationUsesTheServerClock(t *testing.T) {
	env := apitest.New(t)
	ip := newTestIdP(t, env, "https://idp.test/saml")
	provider := ip.provider("Okta", "", "read")
	for _, c := range []struct {
		name  string
		shift time.Duration
		says  string
	}{
		{"expired", 6 * time.Minute, "expired"},
		{"not yet valid", -8 * time.Minute, "not yet valid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			acs, resp := ip.answer(start(t, provider), "clock-"+strings.ReplaceAll(c.name, " ", "-")+"@example.com", nil)
			env.Clock.Advance(c.shift)
			defer env.Clock.Advance(-c.shift)
			status, body := post(t, acs, resp, "application/json")
			if status != 401 || !strings.Contains(string(body), c.says) {
				t.Fatalf("%d %s", status, body)
			}
		})
	}
	// The same flow inside the window signs in.
	acs, resp := ip.answer(start(t, provider), "clock-ok@example.com", nil)
	env.Clock.Advance(time.Minute)
	if status, body := post(t, acs, resp, "application/json"); status != 200 {
		t.Fatalf("in the window: %d %s", status, body)
	}
}
