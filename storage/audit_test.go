package storage_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsapi/storage"
)

// The audit sink writes each recorded change with its actor, names secret
// fields without copying them, and numbers entries in the order written.
func TestAuditSink(t *testing.T) {
	db := openDB(t, filepath.Join(t.TempDir(), "a.db"))
	db.SetActorSource(func(context.Context) storage.Actor {
		return storage.Actor{UserID: "u1", TokenID: "t1", Address: "192.0.2.7", RequestID: "r1"}
	})
	ctx := context.Background()
	for i := range 5 {
		c := storage.Change{OrganizationID: "o1", Action: "thing.updated", TargetType: "thing", TargetID: "t" + string(rune('a'+i)),
			Fields: map[string]any{"title": "T", "password": "hunter2", "webhookSecret": "whsec", "privateKey": "pk", "token": "dapi_x"}}
		if err := db.Write(storage.RecordingChange(ctx, c), func(*storage.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	p, err := db.ListAudit(ctx, "o1", storage.AuditFilter{}, storage.PageQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if p.Count != 5 || len(p.Items) != 5 {
		t.Fatalf("%d entries (count %d), want 5", len(p.Items), p.Count)
	}
	for i, e := range p.Items {
		if want := "t" + string(rune('e'-i)); e.TargetID != want {
			t.Errorf("entry %d is %s, want %s (newest first)", i, e.TargetID, want)
		}
		if e.Actor != (storage.Actor{UserID: "u1", TokenID: "t1", Address: "192.0.2.7", RequestID: "r1"}) {
			t.Errorf("actor %+v", e.Actor)
		}
		for _, k := range []string{"password", "webhookSecret", "privateKey", "token"} {
			if e.Fields[k] != storage.Redacted {
				t.Errorf("%s stored as %v", k, e.Fields[k])
			}
		}
		if e.Fields["title"] != "T" {
			t.Errorf("title stored as %v", e.Fields["title"])
		}
		if i > 0 && strings.Compare(e.ID, p.Items[i-1].ID) >= 0 {
			t.Errorf("ids not decreasing: %s then %s", p.Items[i-1].ID, e.ID)
		}
	}
	if other, _ := db.ListAudit(ctx, "o2", storage.AuditFilter{}, storage.PageQuery{Limit: 10}); other.Count != 0 {
		t.Errorf("another organization sees %d entries", other.Count)
	}
}

// The time range is read as an id range: inclusive at the millisecond on
// both ends, consistent with each entry's createdAt even when the clock
// went back (an entry's id follows the last one, and its createdAt is its
// id's time); pages follow each other under a range and a filter; the
// purge walk visits every organization with entries and deletes one
// organization's old entries, oldest first, leaving the others.
func TestAuditTimeRangeAndPurge(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &fakeClock{t: t0}
	db := openClocked(t, clock)
	ctx := context.Background()
	record := func(org, target string) {
		c := storage.Change{OrganizationID: org, Action: "thing.updated", TargetType: "thing", TargetID: target}
		if err := db.Write(storage.RecordingChange(ctx, c), func(*storage.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		at     time.Duration
		target string
	}{{0, "a"}, {time.Millisecond, "b"}, {time.Millisecond, "c"}, {2 * time.Millisecond, "d"}, {time.Millisecond, "e"}} {
		clock.t = t0.Add(step.at) // "e": the clock went back a millisecond
		record("o1", step.target)
		record("o2", step.target)
	}
	list := func(org string, f storage.AuditFilter, limit int) (targets string, created []time.Time) {
		pq := storage.PageQuery{Limit: limit}
		for range 10 {
			p, err := db.ListAudit(ctx, org, f, pq)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Items {
				targets += e.TargetID
				created = append(created, e.CreatedAt)
			}
			if p.Next == nil {
				break
			}
			pq.After = p.Next
		}
		return targets, created
	}
	all, created := list("o1", storage.AuditFilter{}, 2)
	if all != "edcba" {
		t.Fatalf("newest first: %s", all)
	}
	if !created[0].Equal(t0.Add(2*time.Millisecond)) || !created[1].Equal(t0.Add(2*time.Millisecond)) {
		t.Fatalf("createdAt of e (written after the clock went back) and d: %v", created[:2])
	}
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	for _, tc := range []struct {
		from, to *time.Time
		want     string
	}{
		{at(time.Millisecond), at(time.Millisecond), "cb"},
		{at(time.Millisecond), nil, "edcb"},
		{nil, at(0), "a"},
		{nil, at(-time.Millisecond), ""},
		{at(2 * time.Millisecond), at(time.Hour), "ed"},
		{at(-100 * 365 * 24 * time.Hour), at(100 * 365 * 24 * time.Hour), "edcba"},
	} {
		if got, _ := list("o1", storage.AuditFilter{From: tc.from, To: tc.to, Action: "thing.updated"}, 1); got != tc.want {
			t.Errorf("from %v to %v: %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}

	// The purge walk, one organization a page.
	before := t0.Add(2 * time.Millisecond)
	var expired []string
	after := ""
	for range 3 {
		ids, last, err := db.AuditOrganizationsWithExpired(ctx, after, before, 1)
		if err != nil {
			t.Fatal(err)
		}
		if last == "" {
			break
		}
		expired, after = append(expired, ids...), last
	}
	if strings.Join(expired, " ") != "o1 o2" {
		t.Fatalf("organizations with expired entries: %v", expired)
	}
	if ids, _, err := db.AuditOrganizationsWithExpired(ctx, "", t0, 10); err != nil || len(ids) != 0 {
		t.Fatalf("nothing older than the first entry: %v, %v", ids, err)
	}
	if n, err := db.PurgeAudit(ctx, "o1", before, 2); err != nil || n != 2 {
		t.Fatalf("first batch: %d, %v", n, err)
	}
	if got, _ := list("o1", storage.AuditFilter{}, 10); got != "edc" {
		t.Fatalf("after the first batch (oldest first): %s", got)
	}
	if n, err := db.PurgeAudit(ctx, "o1", before, 2); err != nil || n != 1 {
		t.Fatalf("second batch: %d, %v", n, err)
	}
	if got, _ := list("o1", storage.AuditFilter{}, 10); got != "ed" {
		t.Fatalf("after the purge: %s", got)
	}
	if got, _ := list("o2", storage.AuditFilter{}, 10); got != "edcba" {
		t.Fatalf("another organization's entries: %s", got)
	}
}

// Recorded changes are written to the recent entries and moved into the
// indexed log in batches (MoveRecentAudit); the list, every filter and the
// count are the same at every moment: the instant the write commits, with
// some entries moved and some not (pages cross the two tables), after the
// move, and after a second move that finds nothing (idempotent).
func TestAuditRecentEntriesMove(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &fakeClock{t: t0}
	db := openClocked(t, clock)
	ctx := context.Background()
	actor := "u1"
	db.SetActorSource(func(context.Context) storage.Actor { return storage.Actor{UserID: actor} })
	record := func(org, action, typ, target string) {
		clock.t = clock.t.Add(time.Millisecond)
		c := storage.Change{OrganizationID: org, Action: action, TargetType: typ, TargetID: target}
		if err := db.Write(storage.RecordingChange(ctx, c), func(*storage.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	filters := map[string]storage.AuditFilter{
		"all":    {},
		"actor":  {ActorID: "u2"},
		"action": {Action: "space.created"},
		"prefix": {Action: "space.", ActionPrefix: true},
		"target": {TargetType: "space", TargetID: "s2"},
		"range":  {From: at(2 * time.Millisecond), To: at(5 * time.Millisecond)},
	}
	// view lists every filter two entries a page, with the count.
	view := func() map[string]string {
		out := map[string]string{}
		for name, f := range filters {
			pq := storage.PageQuery{Limit: 2}
			got := ""
			for page := range 20 {
				p, err := db.ListAudit(ctx, "o1", f, pq)
				if err != nil {
					t.Fatal(err)
				}
				if page == 0 {
					got = fmt.Sprintf("%d:", p.Count)
				}
				for _, e := range p.Items {
					got += " " + e.TargetID + "/" + e.Action + "/" + e.Actor.UserID
				}
				if p.Next == nil {
					break
				}
				pq.After = p.Next
			}
			out[name] = got
		}
		return out
	}
	record("o1", "space.created", "space", "s1")
	record("o1", "space.updated", "space", "s2")
	actor = "u2"
	record("o1", "team.created", "team", "t1")
	record("o2", "space.created", "space", "x1")
	record("o1", "space.created", "space", "s2")
	actor = "u1"
	record("o1", "space.moved", "space", "s3")
	want := map[string]string{
		"all":    "5: s3/space.moved/u1 s2/space.created/u2 t1/team.created/u2 s2/space.updated/u1 s1/space.created/u1",
		"actor":  "2: s2/space.created/u2 t1/team.created/u2",
		"action": "2: s2/space.created/u2 s1/space.created/u1",
		"prefix": "4: s3/space.moved/u1 s2/space.created/u2 s2/space.updated/u1 s1/space.created/u1",
		"target": "2: s2/space.created/u2 s2/space.updated/u1",
		"range":  "3: s2/space.created/u2 t1/team.created/u2 s2/space.updated/u1",
	}
	check := func(when string) {
		t.Helper()
		got := view()
		for name := range filters {
			if got[name] != want[name] {
				t.Errorf("%s, %s: %q, want %q", when, name, got[name], want[name])
			}
		}
	}
	check("before any move")
	if n, err := db.MoveRecentAudit(ctx, 3); err != nil || n != 3 {
		t.Fatalf("first move: %d, %v", n, err)
	}
	check("three entries moved")
	if n, err := db.MoveRecentAudit(ctx, 100); err != nil || n != 3 {
		t.Fatalf("second move: %d, %v", n, err)
	}
	check("all moved")
	if n, err := db.MoveRecentAudit(ctx, 100); err != nil || n != 0 {
		t.Fatalf("a move with nothing left: %d, %v", n, err)
	}
	check("after a move that found nothing")
	record("o1", "space.restored", "space", "s2")
	want["all"] = "6: s2/space.restored/u1" + strings.TrimPrefix(want["all"], "5:")
	want["prefix"] = "5: s2/space.restored/u1" + strings.TrimPrefix(want["prefix"], "4:")
	want["target"] = "3: s2/space.restored/u1" + strings.TrimPrefix(want["target"], "2:")
	check("an entry written after the move")
	if other, err := db.ListAudit(ctx, "o2", storage.AuditFilter{}, storage.PageQuery{Limit: 10}); err != nil || other.Count != 1 || len(other.Items) != 1 {
		t.Fatalf("the other organization: %+v, %v", other, err)
	}
}
