package storage_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
