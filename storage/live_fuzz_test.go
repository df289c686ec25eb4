package storage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeLiveNotice: any payload on the live channel is decoded
// without panicking; the process's own notices and oversized payloads are
// dropped, and a notice it made itself round-trips.
func FuzzDecodeLiveNotice(f *testing.F) {
	b, _ := json.Marshal(liveNotice{Origin: "other", Event: LiveEvent{Organization: "o", Action: "comment.created", TargetType: "comment", Target: "c", Space: "s"}})
	f.Add(string(b))
	f.Add(`{"from":"self","e":{"a":"x"}}`)
	f.Add(`{"from":"x","e":{"a":"` + strings.Repeat("a", maxLivePayload) + `"}}`)
	f.Add(`[1,2,{`)
	f.Fuzz(func(t *testing.T, payload string) {
		ev, ok := decodeLiveNotice(payload, "self")
		if !ok {
			return
		}
		if len(payload) > maxLivePayload || ev.Action == "" {
			t.Fatalf("accepted %q", payload)
		}
		again, _ := json.Marshal(liveNotice{Origin: "other", Event: ev})
		if back, ok := decodeLiveNotice(string(again), "self"); !ok || back != ev {
			t.Fatalf("%+v did not round-trip: %+v", ev, back)
		}
	})
}

// FuzzLiveSeen: any id a notification carries (anyone who can connect to
// the database can NOTIFY) is recorded without panicking, is new once,
// the ids of the replay window are new once, and the ids kept stay within
// the window and the bound.
func FuzzLiveSeen(f *testing.F) {
	f.Add("23ocid2r2zp5ufuheh7z", "")
	f.Add(NewTimedID(), NewTimedID())
	f.Add("", "zzzzzzzzzzzzzzzzzzzz")
	f.Add("\xff\x00", "0")
	f.Fuzz(func(t *testing.T, a, b string) {
		var s liveSeen
		now := time.Now()
		r := DefaultLiveReplay
		oldest := now.Add(-r.Age - r.Slack).UnixMilli()
		for _, id := range []string{a, b, a} {
			s.first(id, r, now)
			if timedIDMillis(id) >= oldest && s.first(id, r, now) {
				t.Fatalf("%q, of the replay window, new twice", id)
			}
		}
		if s.len() > 2 || len(s.ids) != s.len() {
			t.Fatalf("%d ids kept, %d in the set", s.len(), len(s.ids))
		}
	})
}
