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
	slow, err := f.join(topic, "t1", "u-t1")
	if err != nil {
		t.Fatal(err)
	}
	fast, err := f.join(topic, "t2", "u-t2")
	if err != nil {
		t.Fatal(err)
	}
	ev := storage.LiveEvent{Action: "comment.created", TargetType: "comment", Space: "sp"}
	for i := range 3 {
		f.Publish(ev)
		<-fast.events
		select {
		case <-slow.ended:
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
	if _, err := f.join(topic, "t1", "u-t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.join(topic, "t1", "u-t1"); err == nil {
		t.Fatal("a third subscription of a token limited to 2")
	}
	f.leave(slow)
	if _, err := f.join(topic, "t1", "u-t1"); err != nil {
		t.Fatal("leaving did not free a place:", err)
	}
}

// FuzzLiveFeedPublish: an event of any content (another process's NOTIFY
// included) reaches exactly the subscriptions of its topic, and a full
// buffer drops instead of blocking.
func FuzzLiveFeedPublish(f *testing.F) {
	f.Add("comment.created", "comment", "c1", "sp", "", "")
	f.Add("change_request.edited", "change_request", "cr", "sp", "cr", "r1")
	f.Add("site.published", "site", "st", "", "", "")
	f.Add("", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, action, targetType, target, space, cr, rev string) {
		feed := NewLiveFeed(LiveLimits{Buffer: 1})
		ev := storage.LiveEvent{Action: action, TargetType: targetType, Target: target, Space: space, ChangeRequest: cr, Revision: rev}
		topic := topicOf(ev)
		sub, err := feed.join(commentsTopic(space, cr), "t", "u-t")
		if err != nil {
			t.Fatal(err)
		}
		feed.Publish(ev)
		feed.Publish(ev) // the buffer of 1 is full now: dropped, not blocked
		if got := len(sub.events) > 0; got != (topic == sub.topic) {
			t.Fatalf("event %+v (topic %q) reached %q: %v", ev, topic, sub.topic, got)
		}
		feed.leave(sub)
		if feed.Subscribers() != 0 {
			t.Fatal("a subscription left behind")
		}
	})
}

// TestLiveFeedResyncEndsEverySubscription: a feed told that events were
// lost ends all its subscriptions, of every topic, with the RESYNC error;
// the first reason a subscription is ended for stands.
func TestLiveFeedResyncEndsEverySubscription(t *testing.T) {
	f := NewLiveFeed(LiveLimits{Buffer: 1})
	a, _ := f.join(commentsTopic("sp", ""), "t1", "u-t1")
	b, _ := f.join(siteTopic("st"), "t2", "u-t2")
	behind, _ := f.join(commentsTopic("sp2", ""), "t3", "u-t3")
	behind.fellBehind()
	f.Resync()
	for _, s := range []*liveSub{a, b} {
		select {
		case <-s.ended:
		default:
			t.Fatalf("%s not ended", s.topic)
		}
		if s.why != errResync || liveError(s.why).Extensions["code"] != "RESYNC" {
			t.Fatalf("%s ended with %v", s.topic, liveError(s.why))
		}
	}
	if behind.why != errFellBehind {
		t.Fatalf("a subscription ended for falling behind now says %v", behind.why)
	}
}
