package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Webhook is an endpoint an organization's admins registered to receive
// its events. Secret signs the deliveries; PreviousSecret, until
// PreviousSecretUntil, signs them too (the grace period of a rotation).
type Webhook struct {
	ID                  string
	OrganizationID      string
	URL                 string
	Description         string
	Events              []string
	Active              bool
	Secret              string
	PreviousSecret      string
	PreviousSecretUntil *time.Time
	DisabledReason      *string
	DisabledAt          *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// WebhookUpdate is a PATCH: nil fields are left as they are. Active true
// also clears a disabled endpoint's reason and failure streak.
type WebhookUpdate struct {
	URL         *string
	Description *string
	Events      []string
	Active      *bool
}

// WebhookEventName maps a recorded change's action to the event name
// webhooks announce: the resource part is spelled with dashes
// ("change_request.opened" is "change-request.opened").
func WebhookEventName(action string) string { return strings.ReplaceAll(action, "_", "-") }

// webhookEvents are the events a webhook may subscribe to; changes whose
// event is not listed queue nothing. The README's "Webhooks" section and
// the GraphQL schema list the same names.
var webhookEvents = map[string]bool{}

// WebhookEvents is the documented set, in its documented order.
var WebhookEvents = []string{
	"space.created", "space.updated", "space.moved", "space.transferred", "space.deleted", "space.restored",
	"page.changed",
	"change-request.opened", "change-request.merged", "change-request.closed",
	"comment.created", "comment.resolved",
	"site.published", "site.unpublished",
	"member.added", "member.role-changed", "member.removed",
	"collection.created", "collection.updated", "collection.deleted",
	"integration.installed", "integration.uninstalled",
	"space.git-synced",
}

// WebhookPing is the event POST .../webhooks/{id}/ping sends; it cannot be
// subscribed to.
const WebhookPing = "ping"

func init() {
	for _, e := range WebhookEvents {
		webhookEvents[e] = true
	}
}

// IsWebhookEvent tells whether name is one of WebhookEvents.
func IsWebhookEvent(name string) bool { return webhookEvents[name] }

// WebhookPayload is the JSON body of a delivery, built once per event.
func WebhookPayload(eventID, typ string, at time.Time, orgID string, data map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": eventID, "type": typ, "createdAt": at.UTC().Format("2006-01-02T15:04:05.000Z"),
		"organization": orgID, "data": data,
	})
	return b
}

// PageChanged describes a new active revision of a space: its content
// changed (page edits, imports, merged change requests, translation runs).
func PageChanged(orgID, spaceID, revID string) Change {
	return Change{OrganizationID: orgID, Action: "page.changed", TargetType: "space", TargetID: spaceID,
		Fields: map[string]any{"revision": revID}}
}

// changeData is a change's `data`: its target as {object, id} with the
// change's fields (object and id win over fields of the same name).
func changeData(c Change) map[string]any {
	data := make(map[string]any, len(c.Fields)+2)
	for k, v := range c.Fields {
		data[k] = v
	}
	data["object"] = c.TargetType
	data["id"] = c.TargetID
	return data
}

// insertWebhookDeliveries queues the event to the active endpoints of the
// organization subscribed to it: one INSERT ... SELECT over the
// subscriptions' primary key, however many endpoints match.
const insertWebhookDeliveries = `INSERT INTO webhook_deliveries (webhook_id, event_id, type, payload, status, attempts, next_attempt_at, queued_at, created_at)
 SELECT s.webhook_id, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), 'pending', 0, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT)
 FROM webhook_subscriptions s JOIN webhooks w ON w.id = s.webhook_id
 WHERE s.organization_id = ? AND s.event = ? AND w.active = 1`

// WebhookLimits are the per-organization caps that keep one organization
// from filling the webhook outbox the others share.
type WebhookLimits struct {
	// Endpoints is the most webhooks an organization may have.
	Endpoints int
	// Pending is the most deliveries of an organization queued at once:
	// the events that find the queue full are recorded as failed
	// deliveries (listed, replayable later) instead of queued.
	Pending int
}

// DefaultWebhookLimits: 100 endpoints, 10,000 queued deliveries.
var DefaultWebhookLimits = WebhookLimits{Endpoints: 100, Pending: 10_000}

// SetWebhookLimits replaces the caps (zero fields keep their default).
func (db *DB) SetWebhookLimits(l WebhookLimits) {
	if l.Endpoints <= 0 {
		l.Endpoints = DefaultWebhookLimits.Endpoints
	}
	if l.Pending <= 0 {
		l.Pending = DefaultWebhookLimits.Pending
	}
	db.webhookLimits.Store(&l)
}

// WebhookLimits are the caps in force.
func (db *DB) WebhookLimits() WebhookLimits {
	if l := db.webhookLimits.Load(); l != nil {
		return *l
	}
	return DefaultWebhookLimits
}

// WebhookLimitError is a write refused for a cap of WebhookLimits: the
// organization already has Limit webhooks (Queue false) or Limit
// deliveries queued (Queue true).
type WebhookLimitError struct {
	Queue bool
	Limit int
}

func (e *WebhookLimitError) Error() string {
	if e.Queue {
		return "storage: the organization's webhook queue holds its cap of " + strconv.Itoa(e.Limit) + " deliveries"
	}
	return "storage: the organization has its cap of " + strconv.Itoa(e.Limit) + " webhooks"
}

// pendingWebhookDeliveries counts an organization's queued deliveries, at
// most limit of them (the partial index on pending rows keeps the count to
// those; it stops at the cap, so its cost is bounded too).
func pendingWebhookDeliveries(tx *Tx, orgID string, limit int) (int, error) {
	var n int
	err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id AND d.status = 'pending'
 WHERE w.organization_id = ? LIMIT ?) q`, orgID, limit).Scan(&n)
	return n, err
}

// webhookQueueFull tells whether orgID has its cap of queued deliveries.
func webhookQueueFull(tx *Tx, orgID string) (bool, error) {
	limit := tx.db.WebhookLimits().Pending
	n, err := pendingWebhookDeliveries(tx, orgID, limit)
	return n >= limit, err
}

// queueFullError is the last_error of a delivery not queued for the cap.
func queueFullError(limit int) string {
	return "not sent: the organization already had " + strconv.Itoa(limit) +
		" deliveries queued (the webhook queue's cap, --webhook-max-pending); replay it once the queue has drained"
}

// insertRefusedWebhookDeliveries records the event to the same endpoints
// as failed, unsent, when the organization's queue is full.
const insertRefusedWebhookDeliveries = `INSERT INTO webhook_deliveries (webhook_id, event_id, type, payload, status, attempts, last_error, queued_at, created_at)
 SELECT s.webhook_id, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), 'failed', 0, CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT)
 FROM webhook_subscriptions s JOIN webhooks w ON w.id = s.webhook_id
 WHERE s.organization_id = ? AND s.event = ? AND w.active = 1`

// queueWebhookDeliveries is the webhook outbox's change sink: it runs in
// the transaction that makes the change, so a rolled-back write queues
// nothing and a committed one is never lost. The worker is told after the
// commit (OnWebhooksQueued). An organization whose queue is at its cap
// gets the event's deliveries recorded as failed, never a failed write.
func queueWebhookDeliveries(tx *Tx, _ Actor, c Change) error {
	event := WebhookEventName(c.Action)
	if !webhookEvents[event] || c.OrganizationID == "" {
		return nil
	}
	if subscribed, err := tx.db.webhookSubs.subscribed(tx, c.OrganizationID, event); err != nil || !subscribed {
		return err // no endpoint of the organization listens: no payload, no statement
	}
	id := NewTimedID()
	body := WebhookPayload(id, event, tx.Now, c.OrganizationID, changeData(c))
	now := ms(tx.Now)
	full, err := webhookQueueFull(tx, c.OrganizationID)
	if err != nil {
		return err
	}
	if full {
		_, err := tx.exec(insertRefusedWebhookDeliveries, id, event, string(body), queueFullError(tx.db.WebhookLimits().Pending), now, now, c.OrganizationID, event)
		return err
	}
	res, err := tx.exec(insertWebhookDeliveries, id, event, string(body), now, now, now, c.OrganizationID, event)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n > 0 {
		tx.afterCommit(tx.db.webhooksQueued)
	}
	return nil
}

// webhookSubs summarizes, by organization, the events some webhook is
// subscribed to, so that a change nobody listens to (the common case: most
// organizations have no webhook) costs the single writer no statement. It
// is exact while the webhook counter stands still: writeSubscriptions
// bumps the counter in the transaction that changes subscriptions (in any
// process), and every write transaction reads it back from its own
// change-counter bump (bumpReturningWebhooks), so a summary taken under
// another counter value is never used. Removed subscriptions leave a
// summary that says too much, which only costs the statement. An entry is
// kept only once the transaction that read it has committed (a rolled-back
// transaction's reading may not be what the counter's value stands for).
type webhookSubs struct {
	mu   sync.Mutex
	gen  int64                      // the webhook counter the entries were read under
	orgs map[string]map[string]bool // organization id → subscribed events (empty: none)
}

// maxWebhookSubs bounds the organizations summarized (emptied when full).
const maxWebhookSubs = 10_000

// subscribed tells whether some webhook of orgID is subscribed to event,
// from the summary when it is valid for tx's counter reading, or else
// read in tx (when tx has no reading of the counter, it answers true: the
// sink's statement then decides). PostgreSQL reads the counter in the
// BEGIN's round trip (webhookCounterSQL).
func (w *webhookSubs) subscribed(tx *Tx, orgID, event string) (bool, error) {
	if !tx.webhooksKnown {
		return true, nil
	}
	w.mu.Lock()
	events, ok := w.orgs[orgID]
	if ok && w.gen != tx.webhooks {
		ok = false
	}
	w.mu.Unlock()
	if ok {
		return events[event], nil
	}
	rows, err := tx.QueryContext(tx.ctx, `SELECT DISTINCT event FROM webhook_subscriptions WHERE organization_id = ?`, orgID)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	events = map[string]bool{}
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			return false, err
		}
		events[e] = true
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	gen := tx.webhooks
	tx.afterCommit(func() { w.keep(gen, orgID, events) })
	return events[event], nil
}

// keep stores an organization's summary read under the counter value gen;
// a summary under another value empties the others.
func (w *webhookSubs) keep(gen int64, orgID string, events map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.orgs == nil || w.gen != gen || len(w.orgs) >= maxWebhookSubs {
		w.orgs, w.gen = map[string]map[string]bool{}, gen
	}
	w.orgs[orgID] = events
}

// bumpWebhookCounter tells every process's webhookSubs that subscriptions
// changed (in the transaction that changes them).
func bumpWebhookCounter(tx *Tx) error {
	// The reading this transaction began with no longer stands (the
	// sink's statement decides for the rest of it).
	tx.webhooksKnown = false
	if tx.hooks != nil {
		tx.hooks.known = false // and for its batch-mates after it
	}
	_, err := tx.exec(`UPDATE change_counter SET webhooks = webhooks + 1 WHERE id = 1`)
	return err
}

// OnWebhooksQueued sets what is called after a commit that queued webhook
// deliveries (the server wakes the delivery worker).
func (db *DB) OnWebhooksQueued(fn func()) { db.webhookWake.Store(&fn) }

func (db *DB) webhooksQueued() {
	if f := db.webhookWake.Load(); f != nil {
		(*f)()
	}
}

const webhookCols = `w.id, w.organization_id, w.url, w.description, w.events, w.active, w.secret, w.previous_secret, w.previous_secret_until,
 w.disabled_reason, w.disabled_at, w.created_at, w.updated_at`

func scanWebhook(sc interface{ Scan(...any) error }) (Webhook, error) {
	var w Webhook
	var events string
	var active int
	var prev, reason sql.NullString
	var prevUntil, disabledAt sql.NullInt64
	var created, updated int64
	if err := sc.Scan(&w.ID, &w.OrganizationID, &w.URL, &w.Description, &events, &active, &w.Secret, &prev, &prevUntil,
		&reason, &disabledAt, &created, &updated); err != nil {
		return w, notFound(err)
	}
	json.Unmarshal([]byte(events), &w.Events)
	w.Active = active == 1
	w.PreviousSecret, w.PreviousSecretUntil = prev.String, nullMillis(prevUntil)
	w.DisabledReason, w.DisabledAt = nullStr(reason), nullMillis(disabledAt)
	w.CreatedAt, w.UpdatedAt = FromMillis(created), FromMillis(updated)
	return w, nil
}

// writeSubscriptions replaces a webhook's subscriptions with events.
func writeSubscriptions(tx *Tx, w Webhook, events []string) error {
	if err := bumpWebhookCounter(tx); err != nil {
		return err
	}
	if _, err := tx.exec(`DELETE FROM webhook_subscriptions WHERE webhook_id = ?`, w.ID); err != nil {
		return err
	}
	if len(events) == 0 {
		return nil
	}
	q := `INSERT INTO webhook_subscriptions (organization_id, event, webhook_id) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(events)), ", ") + ` ON CONFLICT DO NOTHING`
	args := make([]any, 0, 3*len(events))
	for _, e := range events {
		args = append(args, w.OrganizationID, e, w.ID)
	}
	_, err := tx.exec(q, args...)
	return err
}

// CreateWebhook stores w (ID and timestamps set here) with its
// subscriptions, in one transaction; a WebhookLimitError when the organization
// has WebhookLimits.Endpoints webhooks already (counted in the
// transaction, so parallel creates cannot pass the cap together).
func (db *DB) CreateWebhook(ctx context.Context, w *Webhook) error {
	w.ID = NewTimedID() // webhooks created in the same millisecond list in creation order
	limit := db.WebhookLimits().Endpoints
	return db.Write(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM webhooks WHERE organization_id = ? LIMIT ?) q`, w.OrganizationID, limit).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return &WebhookLimitError{Limit: limit}
		}
		w.CreatedAt, w.UpdatedAt = tx.Now, tx.Now
		if _, err := tx.exec(`INSERT INTO webhooks (id, organization_id, url, description, events, active, secret, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, w.ID, w.OrganizationID, w.URL, w.Description, jsonText(w.Events), boolInt(w.Active), w.Secret, ms(tx.Now), ms(tx.Now)); err != nil {
			return err
		}
		return writeSubscriptions(tx, *w, w.Events)
	})
}

// Webhook reads one webhook of an organization (ErrNotFound for another
// organization's).
func (db *DB) Webhook(ctx context.Context, orgID, id string) (Webhook, error) {
	return scanWebhook(db.r().QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks w WHERE w.organization_id = ? AND w.id = ?`, orgID, id))
}

// ListWebhooks pages through an organization's webhooks, oldest first.
func (db *DB) ListWebhooks(ctx context.Context, orgID string, pq PageQuery) (Page[Webhook], error) {
	spec := listSpec{Select: webhookCols, From: `FROM webhooks w WHERE w.organization_id = ?`, Args: []any{orgID},
		SortCol: "w.created_at", IDCol: "w.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Webhook, Cursor, error) {
		w, err := scanWebhook(rows)
		return w, Cursor{N: ms(w.CreatedAt), ID: w.ID}, err
	})
}

// UpdateWebhook applies u to an organization's webhook in one transaction.
func (db *DB) UpdateWebhook(ctx context.Context, orgID, id string, u WebhookUpdate) error {
	return db.Write(ctx, func(tx *Tx) error {
		w, err := scanWebhook(tx.QueryRowContext(ctx, `SELECT `+webhookCols+` FROM webhooks w WHERE w.organization_id = ? AND w.id = ?`, orgID, id))
		if err != nil {
			return err
		}
		if u.URL != nil {
			w.URL = *u.URL
		}
		if u.Description != nil {
			w.Description = *u.Description
		}
		if u.Events != nil {
			w.Events = u.Events
			if err := writeSubscriptions(tx, w, u.Events); err != nil {
				return err
			}
		}
		if u.Active != nil {
			w.Active = *u.Active
			if w.Active {
				// Turned on again: the failure streak starts over.
				w.DisabledReason, w.DisabledAt = nil, nil
				if _, err := tx.exec(`UPDATE webhooks SET failing_since = NULL WHERE id = ?`, id); err != nil {
					return err
				}
			}
		}
		_, err = tx.exec(`UPDATE webhooks SET url = ?, description = ?, events = ?, active = ?, disabled_reason = ?, disabled_at = ?, updated_at = ? WHERE id = ?`,
			w.URL, w.Description, jsonText(w.Events), boolInt(w.Active), strOrNil(w.DisabledReason), timeOrNil(w.DisabledAt), ms(tx.Now), id)
		return err
	})
}

// DeleteWebhook deletes an organization's webhook with its subscriptions
// and deliveries; false when there was none.
func (db *DB) DeleteWebhook(ctx context.Context, orgID, id string) (bool, error) {
	var deleted bool
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM webhooks WHERE organization_id = ? AND id = ?`, orgID, id)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		deleted = n > 0
		return err
	})
	return deleted, err
}

// RotateWebhookSecret makes secret the webhook's signing secret; the one it
// replaces keeps signing (beside it) until graceUntil.
func (db *DB) RotateWebhookSecret(ctx context.Context, orgID, id, secret string, graceUntil time.Time) error {
	return db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE webhooks SET previous_secret = secret, previous_secret_until = ?, secret = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
			ms(graceUntil), secret, ms(tx.Now), orgID, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// WebhookDelivery is one event's delivery to one endpoint, as listed.
type WebhookDelivery struct {
	WebhookID      string
	EventID        string
	Type           string
	Payload        json.RawMessage
	Status         string // pending | succeeded | failed
	Attempts       int
	NextAttemptAt  *time.Time
	ResponseStatus *int
	DurationMs     *int
	LastError      *string
	LastAttemptAt  *time.Time
	CreatedAt      time.Time
}

const webhookDeliveryCols = `d.webhook_id, d.event_id, d.type, d.payload, d.status, d.attempts, d.next_attempt_at, d.response_status, d.duration_ms,
 d.last_error, d.last_attempt_at, d.created_at`

func scanWebhookDelivery(sc interface{ Scan(...any) error }) (WebhookDelivery, error) {
	var d WebhookDelivery
	var payload string
	var next, code, dur, last sql.NullInt64
	var lastErr sql.NullString
	var created int64
	if err := sc.Scan(&d.WebhookID, &d.EventID, &d.Type, &payload, &d.Status, &d.Attempts, &next, &code, &dur, &lastErr, &last, &created); err != nil {
		return d, notFound(err)
	}
	d.Payload = json.RawMessage(payload)
	d.NextAttemptAt, d.LastError, d.LastAttemptAt = nullMillis(next), nullStr(lastErr), nullMillis(last)
	if d.Status != "pending" {
		d.NextAttemptAt = nil
	}
	if code.Valid {
		n := int(code.Int64)
		d.ResponseStatus = &n
	}
	if dur.Valid {
		n := int(dur.Int64)
		d.DurationMs = &n
	}
	d.CreatedAt = FromMillis(created)
	return d, nil
}

// ListWebhookDeliveries pages through a webhook's deliveries, newest first.
// The caller has checked that the webhook is the organization's.
func (db *DB) ListWebhookDeliveries(ctx context.Context, webhookID string, pq PageQuery) (Page[WebhookDelivery], error) {
	spec := listSpec{Select: webhookDeliveryCols, From: `FROM webhook_deliveries d WHERE d.webhook_id = ?`, Args: []any{webhookID},
		SortCol: "d.created_at", IDCol: "d.event_id", Desc: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (WebhookDelivery, Cursor, error) {
		d, err := scanWebhookDelivery(rows)
		return d, Cursor{N: ms(d.CreatedAt), ID: d.EventID}, err
	})
}

// WebhookDeliveryOf reads one delivery of a webhook.
func (db *DB) WebhookDeliveryOf(ctx context.Context, webhookID, eventID string) (WebhookDelivery, error) {
	return scanWebhookDelivery(db.r().QueryRowContext(ctx, `SELECT `+webhookDeliveryCols+` FROM webhook_deliveries d WHERE d.webhook_id = ? AND d.event_id = ?`, webhookID, eventID))
}

// ErrDeliveryPending: a replay of a delivery that is still being attempted.
var ErrDeliveryPending = errors.New("storage: the delivery is still pending")

// ReplayWebhookDelivery queues a finished delivery again (same event id and
// body): due now, with a new 24-hour retry window.
func (db *DB) ReplayWebhookDelivery(ctx context.Context, webhookID, eventID string) error {
	return db.Write(ctx, func(tx *Tx) error {
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?`, webhookID, eventID).Scan(&status); err != nil {
			return notFound(err)
		}
		if status == "pending" {
			return ErrDeliveryPending
		}
		var orgID string
		if err := tx.QueryRowContext(ctx, `SELECT organization_id FROM webhooks WHERE id = ?`, webhookID).Scan(&orgID); err != nil {
			return notFound(err)
		}
		if full, err := webhookQueueFull(tx, orgID); err != nil || full {
			return cmp.Or[error](err, &WebhookLimitError{Queue: true, Limit: tx.db.WebhookLimits().Pending})
		}
		if _, err := tx.exec(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, queued_at = ? WHERE webhook_id = ? AND event_id = ?`,
			ms(tx.Now), ms(tx.Now), webhookID, eventID); err != nil {
			return err
		}
		tx.afterCommit(db.webhooksQueued)
		return nil
	})
}

// QueueWebhookPing queues a ping event to one webhook and returns its id.
func (db *DB) QueueWebhookPing(ctx context.Context, orgID, webhookID string) (string, error) {
	id := NewTimedID()
	err := db.Write(ctx, func(tx *Tx) error {
		if full, err := webhookQueueFull(tx, orgID); err != nil || full {
			return cmp.Or[error](err, &WebhookLimitError{Queue: true, Limit: tx.db.WebhookLimits().Pending})
		}
		body := WebhookPayload(id, WebhookPing, tx.Now, orgID, map[string]any{"object": "webhook", "id": webhookID})
		if _, err := tx.exec(`INSERT INTO webhook_deliveries (webhook_id, event_id, type, payload, status, attempts, next_attempt_at, queued_at, created_at)
 VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)`, webhookID, id, WebhookPing, string(body), ms(tx.Now), ms(tx.Now), ms(tx.Now)); err != nil {
			return err
		}
		tx.afterCommit(db.webhooksQueued)
		return nil
	})
	return id, err
}

// WebhookAttempt is a delivery claimed for one attempt, with what the
// attempt needs from its endpoint.
type WebhookAttempt struct {
	WebhookID      string
	EventID        string
	OrganizationID string // the endpoint's: the claim shares the worker between organizations
	Type           string
	Payload        []byte
	Attempt        int // 1 for the first attempt
	QueuedAt       time.Time
	URL            string
	Active         bool
	Secret         string
	PreviousSecret string // set while the rotation's grace period runs
}

// WebhookClaim is what a claim may take: up to Limit deliveries, and of
// one organization no more than PerOrganization minus what the worker
// already has in flight of it (InFlight, by organization id). 0 for
// PerOrganization: no cap (the claim still takes organizations in turn).
type WebhookClaim struct {
	Limit           int
	PerOrganization int
	InFlight        map[string]int
}

// ClaimWebhookDeliveries leases deliveries due at now: each one's next
// attempt moves to now+lease (a crash mid-attempt only delays it) and its
// attempt count grows by one. This is the one claim of the webhook queue.
//
// The claim shares the worker between organizations: the due deliveries
// are taken oldest first, but never more of one organization than its
// share minus what it has in flight, and the organizations at their share
// are left out of the read (not skipped row by row after it). So one
// organization's backlog or slow receivers hold at most PerOrganization
// of the worker's slots, and another organization's delivery takes the
// next free one.
//
// The candidates are chosen by reads outside the write lock; the write
// then leases each one only if it is still due with the attempt count
// read (the writer is one across processes, SQLite's or PostgreSQL's
// advisory lock), so a delivery is attempted once even when replicas
// claim at the same time.
func (db *DB) ClaimWebhookDeliveries(ctx context.Context, now time.Time, lease time.Duration, c WebhookClaim) ([]WebhookAttempt, error) {
	if c.Limit <= 0 {
		return nil, nil
	}
	perOrg := c.PerOrganization
	if perOrg <= 0 {
		perOrg = c.Limit
	}
	room := func(org string, taken map[string]int) int { return perOrg - c.InFlight[org] - taken[org] }
	var full []string // organizations at their share: not read
	for org := range c.InFlight {
		if room(org, nil) <= 0 {
			full = append(full, org)
		}
	}
	taken := map[string]int{}
	var pick []webhookCandidate
	// Each round reads up to the free slots of the others' due deliveries;
	// a round that meets an organization using up its room leaves it out
	// of the next. Every round takes at least its first row, so there are
	// at most Limit rounds.
	for len(pick) < c.Limit {
		want := c.Limit - len(pick)
		cands, err := db.dueWebhookDeliveries(ctx, now, full, pickedKeys(pick), want)
		if err != nil {
			return nil, err
		}
		exhausted := false
		for _, cd := range cands {
			org := cd.a.OrganizationID
			if room(org, taken) <= 0 {
				exhausted = true
				continue
			}
			taken[org]++
			pick = append(pick, cd)
			if room(org, taken) == 0 {
				full = append(full, org)
			}
		}
		if len(cands) < want || !exhausted {
			break // everything due that may be taken was read
		}
	}
	if len(pick) == 0 {
		return nil, nil
	}
	var out []WebhookAttempt
	err := db.Write(ctx, func(tx *Tx) error {
		out = out[:0]
		for _, cd := range pick {
			res, err := tx.exec(`UPDATE webhook_deliveries SET attempts = ?, next_attempt_at = ?
 WHERE webhook_id = ? AND event_id = ? AND status = 'pending' AND attempts = ? AND next_attempt_at <= ?`,
				cd.a.Attempt, ms(now.Add(lease)), cd.a.WebhookID, cd.a.EventID, cd.stored, ms(now))
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				out = append(out, cd.a)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// webhookCandidate is a due delivery as read; stored is its attempt count
// then (the lease applies only if it is unchanged).
type webhookCandidate struct {
	a      WebhookAttempt
	stored int
}

func pickedKeys(pick []webhookCandidate) [][2]string {
	keys := make([][2]string, len(pick))
	for i, cd := range pick {
		keys[i] = [2]string{cd.a.WebhookID, cd.a.EventID}
	}
	return keys
}

// dueWebhookDeliveries reads up to limit deliveries due at now, oldest
// first, of organizations other than skip, other than the ones picked.
func (db *DB) dueWebhookDeliveries(ctx context.Context, now time.Time, skip []string, picked [][2]string, limit int) ([]webhookCandidate, error) {
	q := `SELECT d.webhook_id, d.event_id, w.organization_id, d.type, d.payload, d.attempts, d.queued_at,
 w.url, w.active, w.secret, w.previous_secret, w.previous_secret_until
 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.next_attempt_at <= ?`
	args := []any{ms(now)}
	if len(skip) > 0 {
		q += ` AND w.organization_id NOT IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(skip)), ", ") + `)`
		for _, org := range skip {
			args = append(args, org)
		}
	}
	for _, k := range picked {
		q += ` AND NOT (d.webhook_id = ? AND d.event_id = ?)`
		args = append(args, k[0], k[1])
	}
	q += ` ORDER BY d.next_attempt_at, d.event_id LIMIT ?`
	args = append(args, limit)
	rows, err := db.r().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhookCandidate
	for rows.Next() {
		var cd webhookCandidate
		var payload string
		var queued int64
		var active int
		var prev sql.NullString
		var prevUntil sql.NullInt64
		a := &cd.a
		if err := rows.Scan(&a.WebhookID, &a.EventID, &a.OrganizationID, &a.Type, &payload, &cd.stored, &queued,
			&a.URL, &active, &a.Secret, &prev, &prevUntil); err != nil {
			return nil, err
		}
		a.Attempt = cd.stored + 1
		a.Payload, a.QueuedAt, a.Active = []byte(payload), FromMillis(queued), active == 1
		if prev.Valid && prevUntil.Valid && prevUntil.Int64 > ms(now) {
			a.PreviousSecret = prev.String
		}
		out = append(out, cd)
	}
	return out, rows.Err()
}

// WebhookOutcome is the result of one attempt. Status succeeded or failed
// ends the delivery; "" schedules another attempt at RetryAt. Sent is false
// when nothing was sent (the endpoint was inactive): the endpoint's failure
// streak is left alone.
type WebhookOutcome struct {
	WebhookID, EventID string
	Status             string
	RetryAt            time.Time
	At                 time.Time // when the attempt was made
	Sent               bool
	ResponseStatus     int // 0: no answer
	Duration           time.Duration
	Error              string
}

// FinishWebhookDeliveries records attempts' outcomes in one transaction.
// An endpoint's failure streak starts at its first failed attempt after a
// success; an endpoint failing for disableAfter is disabled (its pending
// deliveries then fail without being sent).
func (db *DB) FinishWebhookDeliveries(ctx context.Context, outcomes []WebhookOutcome, disableAfter time.Duration) error {
	return db.Write(ctx, func(tx *Tx) error {
		for _, o := range outcomes {
			var next any
			if o.Status == "" {
				next = ms(o.RetryAt)
			}
			status := o.Status
			if status == "" {
				status = "pending"
			}
			var code, dur any
			if o.ResponseStatus != 0 {
				code = o.ResponseStatus
			}
			if o.Sent {
				dur = o.Duration.Milliseconds()
			}
			if _, err := tx.exec(`UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, response_status = ?, duration_ms = ?, last_error = ?, last_attempt_at = ?
 WHERE webhook_id = ? AND event_id = ?`, status, next, code, dur, nullIfEmpty(o.Error), ms(o.At), o.WebhookID, o.EventID); err != nil {
				return err
			}
			if !o.Sent {
				continue
			}
			if o.Status == "succeeded" {
				if _, err := tx.exec(`UPDATE webhooks SET failing_since = NULL WHERE id = ?`, o.WebhookID); err != nil {
					return err
				}
				continue
			}
			if _, err := tx.exec(`UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ?`, ms(o.At), o.WebhookID); err != nil {
				return err
			}
			reason := "deliveries failed for " + disableAfter.String() + "; last error: " + o.Error
			if _, err := tx.exec(`UPDATE webhooks SET active = 0, disabled_reason = ?, disabled_at = ?, updated_at = ?
 WHERE id = ? AND active = 1 AND failing_since <= ?`, reason, ms(o.At), ms(o.At), o.WebhookID, ms(o.At.Add(-disableAfter))); err != nil {
				return err
			}
		}
		return nil
	})
}

// NextWebhookDeliveryAt is when the earliest queued delivery is due (ok
// false when none is queued).
func (db *DB) NextWebhookDeliveryAt(ctx context.Context) (time.Time, bool, error) {
	var at sql.NullInt64
	if err := db.r().QueryRowContext(ctx, `SELECT MIN(next_attempt_at) FROM webhook_deliveries`).Scan(&at); err != nil {
		return time.Time{}, false, err
	}
	if !at.Valid {
		return time.Time{}, false, nil
	}
	return FromMillis(at.Int64), true, nil
}

// WebhooksWithExpiredDeliveries walks the webhooks of every organization
// in id order for the retention purge: of the (at most limit) webhooks after
// the id after, it returns those holding a finished delivery whose last
// attempt was before `before` (see PurgeWebhookDeliveries), and the last id
// walked ("" once the walk is over). One read per page: a primary-key range
// with one index probe per webhook.
func (db *DB) WebhooksWithExpiredDeliveries(ctx context.Context, after string, before time.Time, limit int) (ids []string, last string, err error) {
	rows, err := db.r().QueryContext(ctx, `SELECT w.id, CASE WHEN EXISTS (SELECT 1 FROM webhook_deliveries d
 WHERE d.webhook_id = w.id AND d.created_at < ? AND d.status <> 'pending' AND COALESCE(d.last_attempt_at, d.created_at) < ?) THEN 1 ELSE 0 END
 FROM webhooks w WHERE w.id > ? ORDER BY w.id LIMIT ?`, ms(before), ms(before), after, limit)
	return walkedIDs(rows, err)
}

// PurgeWebhookDeliveries deletes at most limit of a webhook's finished
// deliveries (succeeded or failed; pending ones stay) whose last attempt
// was before `before`, oldest first, in one transaction, and says how many.
// A delivery is created before its last attempt, so the range of the
// per-webhook index (webhook_id, created_at) bounds the rows read; within
// it only a replayed delivery can be skipped (pending again, or finished
// recently).
func (db *DB) PurgeWebhookDeliveries(ctx context.Context, webhookID string, before time.Time, limit int) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error { // bumps the change counter: the deliveries list's cached total changes
		res, err := tx.exec(`DELETE FROM webhook_deliveries WHERE webhook_id = ? AND event_id IN (
 SELECT event_id FROM webhook_deliveries WHERE webhook_id = ? AND created_at < ? AND status <> 'pending' AND COALESCE(last_attempt_at, created_at) < ?
 ORDER BY created_at, event_id LIMIT ?)`, webhookID, webhookID, ms(before), ms(before), limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}
