package graph

import (
	"testing"

	"docsapi/storage"
)

// TestLiveFeedDropsSlowSubscribers: a subscription whose buffer is full
// falls behind at the next event (and is ended by its goroutine); the
// others still get every event; leaving frees the token's places.
func TestLiveFeedDropsSlowSubscribers(t *testing.T) {
	f := NewLiveFeed(LiveLimits{Buffer: 2, PerToken: 2})
	topic := commentsTopic("sp", "")
	slow, err := f.join(topic, "t1")
	if err != nil {
		t.Fatal(err)
	}
	fast, err := f.join(topic, "t2")
	if err != nil {
		t.Fatal(err)
	}
	ev := storage.LiveEvent{Action: "comment.created", TargetType: "comment", Space: "sp"}
	for i := range 3 {
		f.Publish(ev)
		<-fast.events
		select {
		case <-slow.behind:
			if i < 2 {
				t.Fatalf("dropped after %d events with a buffer of 2", i+1)
			}
		default:
			if i == 2 {
				t.Fatal("not dropped with a full buffer")
			}
		}
	}
	f.Publish(storage.LiveEvent{Action: "comment.created", TargetType: "comment", Space: "other"})
	if len(fast.events) != 0 {
		t.Fatal("an event of another space reached the subscription")
	}
	if _, err := f.join(topic, "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.join(topic, "t1"); err == nil {
		t.Fatal("a third subscription of a token limited to 2")
	}
	f.leave(slow)
	if _, err := f.join(topic, "t1"); err != nil {
		t.Fatal("leaving did not free a place:", err)
	}
}
