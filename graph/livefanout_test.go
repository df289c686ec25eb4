package graph

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

// TestLiveResponseSharing: of the subscribers of one event asking for one
// key at once, one executes and the others take its response (a copy of
// its data: gqlgen reuses its buffer); when that execution reached a
// caller's resolver, or answered nothing, every subscriber executes its
// own; another key or another payload is another execution.
func TestLiveResponseSharing(t *testing.T) {
	payload, other := &struct{ n int }{1}, &struct{ n int }{2}
	for _, tc := range []struct {
		name           string
		callerResolver bool
		nothing        bool
		want           int64 // executions of 50 subscribers
	}{{"alike", false, false, 1}, {"caller's resolver", true, false, 50}, {"nothing answered", false, true, 50}} {
		t.Run(tc.name, func(t *testing.T) {
			d := &liveDelivery{}
			var runs atomic.Int64
			var wg sync.WaitGroup
			var mu sync.Mutex
			var bufs [][]byte
			got := make([]*graphql.Response, 50)
			encs := make([]*liveEncoding, 50)
			for i := range got {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got[i], encs[i] = d.response(liveResponseKey{doc: "q", payload: payload}, func(rec *liveResolverUse) *graphql.Response {
						runs.Add(1)
						if tc.nothing {
							return nil
						}
						if rec != nil && tc.callerResolver {
							rec.callerDependent.Store(true)
						}
						buf := []byte(`{"a":1}`)
						mu.Lock()
						bufs = append(bufs, buf)
						mu.Unlock()
						return &graphql.Response{Data: buf}
					})
				}()
			}
			wg.Wait()
			for _, b := range bufs {
				copy(b, `{"b":2}`) // gqlgen's buffers, at their next event
			}
			if n := runs.Load(); n != tc.want {
				t.Fatalf("%d executions, want %d", n, tc.want)
			}
			if tc.nothing {
				return
			}
			shared := 0
			for _, r := range got {
				if string(r.Data) == `{"a":1}` {
					shared++
				}
			}
			if tc.want == 1 && shared != len(got) {
				t.Fatalf("%d subscribers got the shared data, want %d", shared, len(got))
			}
			// A shared response comes with one encoding for all, of that
			// response; a subscriber's own, with none.
			for i, e := range encs {
				if tc.want == 1 && (e == nil || e != encs[0] || e.resp != got[i] || string(e.bytes()) != `{"data":{"a":1}}`) {
					t.Fatalf("subscriber %d: encoding %+v of %+v", i, e, got[i])
				}
				if tc.want != 1 && e != nil {
					t.Fatalf("subscriber %d: its own execution came with a shared encoding", i)
				}
			}
		})
	}
	d := &liveDelivery{}
	var runs int
	exec := func(*liveResolverUse) *graphql.Response { runs++; return &graphql.Response{Data: []byte(`{}`)} }
	d.response(liveResponseKey{doc: "q", payload: payload}, exec)
	d.response(liveResponseKey{doc: "q2", payload: payload}, exec)
	d.response(liveResponseKey{doc: "q", payload: other}, exec)
	d.response(liveResponseKey{doc: "q", payload: payload}, exec)
	if runs != 3 {
		t.Fatalf("%d executions for 3 keys, want 3", runs)
	}
}
