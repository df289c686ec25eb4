package storage

import (
	"context"
	"time"
)

// SiteEvent is one tracked event of a published site: the columns
// aggregations read, and the event's JSON as tracked.
type SiteEvent struct {
	ID          string
	SiteID      string
	Type        string
	At          time.Time
	VisitorID   string
	SessionID   string
	PageID      *string
	SiteSpaceID *string
	Claims      string // JSON object
	Event       string // JSON object
}

// SiteEvents is what the resolvers read and write of site events.
type SiteEvents interface {
	AddSiteEvents(ctx context.Context, events []SiteEvent) error
	SiteEventsBetween(ctx context.Context, siteID string, from, to time.Time, max int) ([]SiteEvent, error)
}

// AddSiteEvents stores events in one write (IDs filled in).
func (db *DB) AddSiteEvents(ctx context.Context, events []SiteEvent) error {
	for i := range events {
		events[i].ID = NewID()
	}
	return db.Write(ctx, func(tx *Tx) error {
		for _, e := range events {
			if _, err := tx.exec(`INSERT INTO site_events (id, site_id, type, at, visitor_id, session_id, page_id, site_space_id, claims, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				e.ID, e.SiteID, e.Type, ms(e.At), e.VisitorID, e.SessionID, strOrNil(e.PageID), strOrNil(e.SiteSpaceID), e.Claims, e.Event); err != nil {
				return err
			}
		}
		return nil
	})
}

// SiteEventsBetween reads a site's events with from <= at < to, oldest
// first, at most max of them.
func (db *DB) SiteEventsBetween(ctx context.Context, siteID string, from, to time.Time, max int) ([]SiteEvent, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT id, site_id, type, at, visitor_id, session_id, page_id, site_space_id, claims, event FROM site_events
 WHERE site_id = ? AND at >= ? AND at < ? ORDER BY at, id LIMIT ?`, siteID, ms(from), ms(to), max)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SiteEvent
	for rows.Next() {
		var e SiteEvent
		var at int64
		var page, ss *string
		if err := rows.Scan(&e.ID, &e.SiteID, &e.Type, &at, &e.VisitorID, &e.SessionID, &page, &ss, &e.Claims, &e.Event); err != nil {
			return nil, err
		}
		e.At, e.PageID, e.SiteSpaceID = FromMillis(at), page, ss
		out = append(out, e)
	}
	return out, rows.Err()
}
