package server_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"docsapi/apitest"
)

// TestSubscriptionColdAccessStatements: after a change of access (a
// member added), the event's subscribers (each its own user) have their
// access read again all at once (storage.PrimeAccess), not three
// statements each: 40 subscribers cost at most one statement more each
// than 10 (the token lookups), where reading each one's access alone cost
// three more. The fewest of three events is taken (the counter sees the
// background workers' statements too).
func TestSubscriptionColdAccessStatements(t *testing.T) {
	measure := func(subscribers int) int64 {
		var n atomic.Int64
		env := apitest.New(t, apitest.Options{Statements: &n})
		space := newSpace(env, env.Admin.Token)
		var cs []*liveClient
		for i := range subscribers {
			u := env.NewUser(fmt.Sprintf("s%d@acme.test", i), env.Org, "read")
			c := dialLive(t, env, nil, bearer(u.Token))
			defer c.close()
			c.subscribe("s", commentSub, map[string]any{"s": space})
			cs = append(cs, c)
		}
		waitSubscribed(t, env, subscribers)
		got := int64(-1)
		for try := range 3 {
			env.NewUser(fmt.Sprintf("new%d@acme.test", try), env.Org, "read") // a change of access
			n.Store(0)
			postComment(env, env.Admin.Token, space, "cold")
			for _, c := range cs {
				c.next("s")
			}
			if c := n.Load(); got < 0 || c < got {
				got = c
			}
		}
		return got
	}
	few, many := measure(10), measure(40)
	t.Logf("statements of an event after a change of access: %d for 10 subscribers, %d for 40", few, many)
	if per := float64(many-few) / 30; per > 1.5 {
		t.Fatalf("%.1f statements more per subscriber after a change of access, want at most 1.5 (its access read with the others')", per)
	}
}
