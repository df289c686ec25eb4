package storage

import (
	"context"
	"strings"
)

// Finding a published site from a reader's URL (graph/published.go): by the
// site's own hostname or proxy origin, or by its basename under its
// organization on the service's own published base.

// PublishedSites is what URL resolution reads.
type PublishedSites interface {
	SitesAtHost(ctx context.Context, host string) ([]Site, error)
	SiteByBasename(ctx context.Context, orgID, basename string) (Site, error)
	OrganizationIDByHostname(ctx context.Context, hostname string) (string, error)
	SiteFallbackURL(ctx context.Context, siteID string) (*string, error)
	SetSiteFallbackURL(ctx context.Context, orgID, siteID string, u *string) error
}

// SitesAtHost lists the published sites whose hostname is host, then those
// whose proxy origin starts with host/ (the caller picks the longest proxy
// path that prefixes the URL).
func (db *DB) SitesAtHost(ctx context.Context, host string) ([]Site, error) {
	host = strings.ToLower(host)
	rows, err := db.r().QueryContext(ctx, `SELECT `+siteCols+` FROM sites st WHERE st.published = 1 AND (LOWER(st.hostname) = ? OR LOWER(st.proxy) LIKE ? ESCAPE '\')
 ORDER BY st.hostname IS NULL, st.created_at, st.id`, host, likeEscape(host+"/")+"%")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Site
	for rows.Next() {
		s, err := scanSite(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SiteByBasename reads orgID's site with that basename.
func (db *DB) SiteByBasename(ctx context.Context, orgID, basename string) (Site, error) {
	return scanSite(db.r().QueryRowContext(ctx, `SELECT `+siteCols+` FROM sites st WHERE st.organization_id = ? AND st.basename = ?`, orgID, basename))
}

// OrganizationIDByHostname is the id of the organization whose hostname
// (its subdomain of the public URL) is hostname.
func (db *DB) OrganizationIDByHostname(ctx context.Context, hostname string) (string, error) {
	var id string
	err := db.r().QueryRowContext(ctx, `SELECT id FROM organizations WHERE LOWER(hostname) = ?`, strings.ToLower(hostname)).Scan(&id)
	return id, notFound(err)
}

// SiteFallbackURL is a site's visitor fallback URL (nil: none).
func (db *DB) SiteFallbackURL(ctx context.Context, siteID string) (*string, error) {
	var u *string
	err := db.r().QueryRowContext(ctx, `SELECT visitor_fallback_url FROM sites WHERE id = ?`, siteID).Scan(&u)
	return u, notFound(err)
}

// SetSiteFallbackURL sets or (nil) removes a site's visitor fallback URL.
func (db *DB) SetSiteFallbackURL(ctx context.Context, orgID, siteID string, u *string) error {
	return db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE sites SET visitor_fallback_url = ? WHERE id = ? AND organization_id = ?`, strOrNil(u), siteID, orgID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}
