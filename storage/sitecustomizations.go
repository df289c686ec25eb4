package storage

import "context"

// Site customization settings: the site's own, under site space
// id "", and each site space's overrides, as JSON objects the resolvers
// check and merge.

// SiteCustomizations is what the resolvers read and write of them.
type SiteCustomizations interface {
	SiteCustomizations(ctx context.Context, siteID string) (map[string]string, error)
	SetSiteCustomization(ctx context.Context, siteID, siteSpaceID, settings string) error
	DeleteSiteCustomization(ctx context.Context, siteID, siteSpaceID string) (bool, error)
}

// SiteCustomizations reads a site's settings by site space id ("": the site).
func (db *DB) SiteCustomizations(ctx context.Context, siteID string) (map[string]string, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT site_space_id, settings FROM site_customizations WHERE site_id = ?`, siteID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, settings string
		if err := rows.Scan(&id, &settings); err != nil {
			return nil, err
		}
		out[id] = settings
	}
	return out, rows.Err()
}

// SetSiteCustomization stores the settings of a site ("") or site space.
func (db *DB) SetSiteCustomization(ctx context.Context, siteID, siteSpaceID, settings string) error {
	return db.writeOwned(ctx, siteOrgSQL, siteID, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO site_customizations (site_id, site_space_id, settings) VALUES (?, ?, ?)
 ON CONFLICT (site_id, site_space_id) DO UPDATE SET settings = excluded.settings`, siteID, siteSpaceID, settings)
		return err
	})
}

// DeleteSiteCustomization removes a site space's overrides.
func (db *DB) DeleteSiteCustomization(ctx context.Context, siteID, siteSpaceID string) (bool, error) {
	var n int64
	err := db.writeOwned(ctx, siteOrgSQL, siteID, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM site_customizations WHERE site_id = ? AND site_space_id = ?`, siteID, siteSpaceID)
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
