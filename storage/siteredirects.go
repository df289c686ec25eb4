package storage

import (
	"context"
	"database/sql"
	"time"
)

// SiteRedirect sends a path of a site (Source, "/a/b") to Destination, the
// JSON of the published interface's SiteRedirectDestination (the resolvers
// check it).
type SiteRedirect struct {
	ID          string
	SiteID      string
	Source      string
	Destination string
	CreatedAt   time.Time
}

// ErrRedirectSourceTaken: the site already redirects that source.
var ErrRedirectSourceTaken = conflict("a redirect of this source exists in the site")

// SiteRedirects is what the resolvers read and write of site redirects.
type SiteRedirects interface {
	ListSiteRedirects(ctx context.Context, siteID string, pq PageQuery) (Page[SiteRedirect], error)
	SiteRedirect(ctx context.Context, siteID, id string) (SiteRedirect, error)
	SiteRedirectBySource(ctx context.Context, siteID, source string) (SiteRedirect, error)
	CreateSiteRedirect(ctx context.Context, r *SiteRedirect) error
	UpdateSiteRedirect(ctx context.Context, siteID, id string, source, destination *string) error
	DeleteSiteRedirect(ctx context.Context, siteID, id string) (bool, error)
}

const siteRedirectCols = `r.id, r.site_id, r.source, r.destination, r.created_at`

func scanSiteRedirect(sc interface{ Scan(...any) error }) (SiteRedirect, error) {
	var r SiteRedirect
	var created int64
	if err := sc.Scan(&r.ID, &r.SiteID, &r.Source, &r.Destination, &created); err != nil {
		return r, notFound(err)
	}
	r.CreatedAt = FromMillis(created)
	return r, nil
}

// ListSiteRedirects pages through a site's redirects, oldest first.
func (db *DB) ListSiteRedirects(ctx context.Context, siteID string, pq PageQuery) (Page[SiteRedirect], error) {
	spec := listSpec{Select: siteRedirectCols, From: `FROM site_redirects r WHERE r.site_id = ?`, Args: []any{siteID}, SortCol: "r.created_at", IDCol: "r.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (SiteRedirect, Cursor, error) {
		r, err := scanSiteRedirect(rows)
		return r, Cursor{N: r.CreatedAt.UnixMilli(), ID: r.ID}, err
	})
}

func (db *DB) SiteRedirect(ctx context.Context, siteID, id string) (SiteRedirect, error) {
	return scanSiteRedirect(db.r().QueryRowContext(ctx, `SELECT `+siteRedirectCols+` FROM site_redirects r WHERE r.id = ? AND r.site_id = ?`, id, siteID))
}

func (db *DB) SiteRedirectBySource(ctx context.Context, siteID, source string) (SiteRedirect, error) {
	return scanSiteRedirect(db.r().QueryRowContext(ctx, `SELECT `+siteRedirectCols+` FROM site_redirects r WHERE r.site_id = ? AND r.source = ?`, siteID, source))
}

// CreateSiteRedirect inserts r (ID and CreatedAt filled in).
func (db *DB) CreateSiteRedirect(ctx context.Context, r *SiteRedirect) error {
	r.ID = NewID()
	err := db.writeOwned(ctx, siteOrgSQL, r.SiteID, func(tx *Tx) error {
		r.CreatedAt = tx.Now
		_, err := tx.exec(`INSERT INTO site_redirects (id, site_id, source, destination, created_at) VALUES (?, ?, ?, ?, ?)`,
			r.ID, r.SiteID, r.Source, r.Destination, ms(tx.Now))
		return err
	})
	return uniqueAs(err, ErrRedirectSourceTaken)
}

// UpdateSiteRedirect replaces the source and/or destination (nil: kept).
func (db *DB) UpdateSiteRedirect(ctx context.Context, siteID, id string, source, destination *string) error {
	err := db.writeOwned(ctx, siteOrgSQL, siteID, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE site_redirects SET source = COALESCE(?, source), destination = COALESCE(?, destination) WHERE id = ? AND site_id = ?`,
			strOrNil(source), strOrNil(destination), id, siteID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	return uniqueAs(err, ErrRedirectSourceTaken)
}

func (db *DB) DeleteSiteRedirect(ctx context.Context, siteID, id string) (bool, error) {
	var n int64
	err := db.writeOwned(ctx, siteOrgSQL, siteID, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM site_redirects WHERE id = ? AND site_id = ?`, id, siteID)
		if err == nil {
			n, err = res.RowsAffected()
		}
		if n == 0 {
			tx.unchanged()
		}
		return err
	})
	return n > 0, err
}
