package storage

import (
	"encoding/json"
	"strings"
	"testing"
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
