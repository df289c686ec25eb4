package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// LogLine is one line of an event's trace.
type LogLine struct {
	Level   string // debug | info | warn | error
	Message string
	At      time.Time
}

// NewEvent is an event to record. With Deliver the event is queued for
// delivery to the integration's development tunnel.
type NewEvent struct {
	ID             string
	IntegrationID  string
	InstallationID string
	OrganizationID string
	Type           string
	Payload        json.RawMessage
	Status         string // pending | success | failed
	Logs           []LogLine
	Deliver        bool
	// DeliverAt delays the first delivery attempt (zero: at once); a
	// queued integration task's schedule.
	DeliverAt time.Time
}

// Event is a recorded integration event.
type Event struct {
	ID             string
	IntegrationID  string
	InstallationID string
	Type           string
	Payload        json.RawMessage
	Status         string
	CreatedAt      time.Time
	Seq            int64 // recording order
}

func insertEvents(tx *Tx, events []NewEvent) error {
	for _, e := range events {
		if _, err := tx.exec(`INSERT INTO integration_events (id, seq, integration_id, installation_id, organization_id, type, payload, status, created_at)
 VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM integration_events), ?, ?, ?, ?, ?, ?, ?)`, e.ID, e.IntegrationID, nullIfEmpty(e.InstallationID), nullIfEmpty(e.OrganizationID), e.Type, string(e.Payload), e.Status, ms(tx.Now)); err != nil {
			return err
		}
		if err := appendLogs(tx, e.ID, e.Logs); err != nil {
			return err
		}
		if e.Deliver {
			first := tx.Now
			if e.DeliverAt.After(first) {
				first = e.DeliverAt
			}
			if _, err := tx.exec(`INSERT INTO integration_deliveries (event_id, integration_id, next_attempt_at, created_at) VALUES (?, ?, ?, ?)`,
				e.ID, e.IntegrationID, ms(first), ms(tx.Now)); err != nil {
				return err
			}
		}
	}
	return nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func appendLogs(tx *Tx, eventID string, logs []LogLine) error {
	if len(logs) == 0 {
		return nil
	}
	var seq int
	if err := tx.QueryRowContext(tx.ctx, `SELECT COALESCE(MAX(seq), 0) FROM integration_event_logs WHERE event_id = ?`, eventID).Scan(&seq); err != nil {
		return err
	}
	for _, l := range logs {
		seq++
		at := l.At
		if at.IsZero() {
			at = tx.Now
		}
		if _, err := tx.exec(`INSERT INTO integration_event_logs (event_id, seq, level, message, logged_at) VALUES (?, ?, ?, ?, ?)`,
			eventID, seq, l.Level, l.Message, ms(at)); err != nil {
			return err
		}
	}
	return nil
}

// RecordEvents records events that are not part of another write (renders).
func (db *DB) RecordEvents(ctx context.Context, events ...NewEvent) error {
	return db.Write(ctx, func(tx *Tx) error { return insertEvents(tx, events) })
}

const eventCols = `e.id, e.integration_id, e.installation_id, e.type, e.payload, e.status, e.created_at, e.seq`

func scanEvent(sc interface{ Scan(...any) error }) (Event, error) {
	var e Event
	var inst sql.NullString
	var payload string
	var created int64
	if err := sc.Scan(&e.ID, &e.IntegrationID, &inst, &e.Type, &payload, &e.Status, &created, &e.Seq); err != nil {
		return e, notFound(err)
	}
	e.InstallationID = inst.String
	e.Payload = json.RawMessage(payload)
	e.CreatedAt = FromMillis(created)
	return e, nil
}

// ListEvents pages through an integration's events, newest first.
func (db *DB) ListEvents(ctx context.Context, integrationID string, pq PageQuery) (Page[Event], error) {
	spec := listSpec{Select: eventCols, From: `FROM integration_events e WHERE e.integration_id = ?`, Args: []any{integrationID},
		SortCol: "e.seq", IDCol: "e.id", Desc: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Event, Cursor, error) {
		e, err := scanEvent(rows)
		return e, Cursor{N: e.Seq, ID: e.ID}, err
	})
}

// Event reads one event of an integration with its trace, in one snapshot.
func (db *DB) Event(ctx context.Context, integrationID, eventID string) (Event, []LogLine, error) {
	var e Event
	var logs []LogLine
	err := db.ReadTx(ctx, func(q queryer) error {
		var err error
		if e, err = scanEvent(q.QueryRowContext(ctx, `SELECT `+eventCols+` FROM integration_events e WHERE e.integration_id = ? AND e.id = ?`, integrationID, eventID)); err != nil {
			return err
		}
		rows, err := q.QueryContext(ctx, `SELECT level, message, logged_at FROM integration_event_logs WHERE event_id = ? ORDER BY seq`, eventID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l LogLine
			var at int64
			if err := rows.Scan(&l.Level, &l.Message, &at); err != nil {
				return err
			}
			l.At = FromMillis(at)
			logs = append(logs, l)
		}
		return rows.Err()
	})
	return e, logs, err
}

// Delivery is a queued delivery claimed for one attempt, with what the
// attempt needs: the payload and the integration's current tunnel, secret
// and content security policy.
type Delivery struct {
	EventID         string
	IntegrationID   string
	IntegrationName string
	Type            string
	Payload         json.RawMessage
	Attempt         int // 1 for the first attempt
	TunnelURL       *string
	Secret          string
	CSP             json.RawMessage
}

// ClaimDeliveries leases up to limit deliveries due at now: each one's next
// attempt moves to now+lease (so a crash mid-attempt only delays it) and its
// attempt count grows by one.
func (db *DB) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]Delivery, error) {
	var out []Delivery
	// An idle queue costs one read, not a write transaction.
	var due int
	if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM integration_deliveries WHERE next_attempt_at <= ? LIMIT 1) d`, ms(now)).Scan(&due); err != nil || due == 0 {
		return nil, err
	}
	err := db.Write(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT d.event_id, d.integration_id, i.name, e.type, e.payload, d.attempts, i.dev_tunnel_url, i.signing_secret, i.csp
 FROM integration_deliveries d JOIN integration_events e ON e.id = d.event_id JOIN integrations i ON i.id = d.integration_id
 WHERE d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.event_id LIMIT ?`, ms(now), limit)
		if err != nil {
			return err
		}
		for rows.Next() {
			var d Delivery
			var payload string
			var tunnel, csp sql.NullString
			if err := rows.Scan(&d.EventID, &d.IntegrationID, &d.IntegrationName, &d.Type, &payload, &d.Attempt, &tunnel, &d.Secret, &csp); err != nil {
				rows.Close()
				return err
			}
			d.Attempt++
			d.Payload, d.TunnelURL = json.RawMessage(payload), nullStr(tunnel)
			if csp.Valid {
				d.CSP = json.RawMessage(csp.String)
			}
			out = append(out, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, d := range out {
			if _, err := tx.exec(`UPDATE integration_deliveries SET attempts = ?, next_attempt_at = ? WHERE event_id = ?`,
				d.Attempt, ms(now.Add(lease)), d.EventID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// DeliveryOutcome is the result of one attempt: Status success or failed
// ends the delivery; "" schedules another attempt at RetryAt. Attempt is
// the attempt's number as claimed (Delivery.Attempt): it fences the
// outcome, see FinishDeliveries.
type DeliveryOutcome struct {
	EventID string
	Attempt int
	Logs    []LogLine
	Status  string
	RetryAt time.Time
}

// FinishDeliveries records the outcomes of attempts, in one transaction.
// An outcome counts only while its attempt is still the delivery's last
// claim: when the claim's lease ran out and another process (or this one)
// claimed the delivery again, the attempt count moved on and the late
// outcome, logs included, is dropped, so an attempt is recorded once.
func (db *DB) FinishDeliveries(ctx context.Context, outcomes []DeliveryOutcome) error {
	return db.Write(ctx, func(tx *Tx) error {
		for _, o := range outcomes {
			var res sql.Result
			var err error
			if o.Status == "" {
				res, err = tx.exec(`UPDATE integration_deliveries SET next_attempt_at = ? WHERE event_id = ? AND attempts = ?`, ms(o.RetryAt), o.EventID, o.Attempt)
			} else {
				res, err = tx.exec(`DELETE FROM integration_deliveries WHERE event_id = ? AND attempts = ?`, o.EventID, o.Attempt)
			}
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				if err != nil {
					return err
				}
				continue // claimed again since: not this attempt's to record
			}
			if err := appendLogs(tx, o.EventID, o.Logs); err != nil {
				return err
			}
			if o.Status != "" {
				if _, err := tx.exec(`UPDATE integration_events SET status = ? WHERE id = ?`, o.Status, o.EventID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// NextDeliveryAt is when the earliest queued delivery is due (ok false when
// the queue is empty).
func (db *DB) NextDeliveryAt(ctx context.Context) (time.Time, bool, error) {
	var at sql.NullInt64
	if err := db.r().QueryRowContext(ctx, `SELECT MIN(next_attempt_at) FROM integration_deliveries`).Scan(&at); err != nil {
		return time.Time{}, false, err
	}
	if !at.Valid {
		return time.Time{}, false, nil
	}
	return FromMillis(at.Int64), true, nil
}
