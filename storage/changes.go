package storage

import (
	"context"
)

// Change is one change to an organization that its audit log keeps and its
// webhooks announce. Resolvers describe it (Recording); the write
// transaction that makes the change records it before it commits, so a
// rolled-back write records nothing and a committed one is never lost.
type Change struct {
	OrganizationID string
	Action         string // dotted, past tense: "space.created", "member.role_changed"
	TargetType     string // "space", "collection", "member", ...
	TargetID       string // empty: the id the write created (Tx.created)
	// Fields summarizes what changed (field name to its new value). Never
	// a secret: a token's or a webhook's secret is named, not copied.
	Fields map[string]any
}

// Actor is who made a request's changes and from where, as the server saw
// it (the server installs the source: SetActorSource).
type Actor struct {
	UserID    string
	TokenID   string
	Address   string
	RequestID string
}

// changeSink consumes one recorded change inside the write transaction
// that makes it; an error rolls the write back. Each consumer (audit log,
// webhook outbox) is one entry of changeSinks.
type changeSink func(tx *Tx, actor Actor, c Change) error

var changeSinks = []changeSink{auditSink, queueWebhookDeliveries, liveSink}

type recordingKey struct{}

// Recording returns ctx carrying the changes a write is about to make. The
// first write transaction run with it that succeeds calls changes after its
// own statements (so ids the write generated are known) and records what it
// returns in the same transaction; later transactions with the same context
// record nothing more. A nil or empty answer records nothing.
func Recording(ctx context.Context, changes func() []Change) context.Context {
	return context.WithValue(ctx, recordingKey{}, &txStep[func() []Change]{fn: changes})
}

// RecordingChange is Recording for one change, known before the write.
func RecordingChange(ctx context.Context, c Change) context.Context {
	return Recording(ctx, func() []Change { return []Change{c} })
}

// SetActorSource tells the storage how to find the actor of a request's
// context (nil: changes are recorded with an empty actor).
func (db *DB) SetActorSource(f func(context.Context) Actor) {
	if f == nil {
		db.actorOf.Store(nil)
		return
	}
	db.actorOf.Store(&f)
}

// recordChanges records the changes of rec (the context's Recording that
// no committed transaction has run yet, nil when none) inside t.
func (t *Tx) recordChanges(ctx context.Context, rec *txStep[func() []Change]) error {
	if rec == nil || len(changeSinks) == 0 || t.noChange {
		return nil
	}
	changes := rec.fn()
	if len(changes) == 0 {
		return nil
	}
	var actor Actor
	if f := t.db.actorOf.Load(); f != nil {
		actor = (*f)(ctx)
	}
	for _, c := range changes {
		if c.TargetID == "" {
			c.TargetID = t.createdID
		}
		for _, sink := range changeSinks {
			if err := sink(t, actor, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// created notes the id of what a create made, for the changes recorded
// with an empty TargetID (the resolver cannot know it before the write).
func (t *Tx) created(id string) { t.createdID = id }

// unchanged tells recordChanges that this write changed nothing (a delete
// of what was already gone): it records nothing.
func (t *Tx) unchanged() { t.noChange = true }
