package storage

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Sites is docs sites, their share links and the structure of each site
// (sitestructure.go).
type Sites interface {
	Site(ctx context.Context, orgID, id string) (Site, error)
	ListSites(ctx context.Context, orgID string, f SiteFilter, pq PageQuery) (Page[Site], error)
	CreateSite(ctx context.Context, s *Site, newSpace *Space, spaces []SiteSpace, basename *NameChoice) error
	UpdateSite(ctx context.Context, orgID, id string, p SitePatch) error
	DeleteSite(ctx context.Context, orgID, id string) (bool, error)
	SitesByIDs(ctx context.Context, ids []string) (map[string]Site, error)

	SiteStructure(ctx context.Context, siteID string) (SiteStructure, error)
	SaveSiteStructure(ctx context.Context, siteID string, st SiteStructure) error
	ListSiteSpaces(ctx context.Context, siteID string, def *bool, pq PageQuery) (Page[SiteSpace], error)
	ListSiteSections(ctx context.Context, siteID string, pq PageQuery) (Page[SiteSection], error)
	ListSiteSectionGroups(ctx context.Context, siteID string, pq PageQuery) (Page[SiteSectionGroup], error)

	ShareLink(ctx context.Context, siteID, id string) (ShareLink, error)
	ShareLinkByKey(ctx context.Context, key string) (ShareLink, error)
	TakeShareGuess(ctx context.Context, id string, now time.Time, every time.Duration, burst int) (time.Duration, error)
	ReturnShareGuess(ctx context.Context, id string, every time.Duration) error
	ListShareLinks(ctx context.Context, siteID string, pq PageQuery) (Page[ShareLink], error)
	CreateShareLink(ctx context.Context, l *ShareLink) error
	UpdateShareLink(ctx context.Context, siteID, id string, c ShareLinkChange) error
	DeleteShareLink(ctx context.Context, siteID, id string) (bool, error)
	SitesOfSpace(ctx context.Context, spaceID string) ([]Site, error)
	PublishedSiteSpaceOf(ctx context.Context, orgID, spaceID string) (SiteSpace, error)
}

var (
	// ErrBasenameTaken: another site of the organization has the basename.
	ErrBasenameTaken error = conflict("basename already in use in the organization")
	// ErrStale: a structure plan was made from a structure that changed since.
	ErrStale error = conflict("the site structure changed since it was read")
)

// Site is a docs site of an organization. SiteSpaces is the number of its
// site spaces (computed by the query).
type Site struct {
	ID                      string
	OrganizationID          string
	Type                    string
	Title                   string
	Basename                string
	Hostname                *string
	Proxy                   *string
	Visibility              string
	Published               bool
	AdaptiveContent         bool
	AgentsContext           string
	Icon                    *string // JSON object; nil: no icon
	DefaultSiteSpaceID      *string
	DefaultSectionID        *string
	StructureVersion        int64
	AdaptiveSchema          string
	AdaptiveSchemaUpdatedAt time.Time
	VisitorSecret           string
	VisitorSecretRotatedAt  time.Time
	CreatedAt               time.Time
	UpdatedAt               time.Time
	SiteSpaces              int
	DefaultSpaceID          *string // the space of the default site space; nil: no site space
}

const siteCols = `st.id, st.organization_id, st.type, st.title, st.basename, st.hostname, st.proxy, st.visibility, st.published,
 st.adaptive_content, st.agents_context, st.icon, st.default_site_space_id, st.default_section_id, st.structure_version,
 st.adaptive_schema, st.adaptive_schema_updated_at, st.visitor_secret, st.visitor_secret_rotated_at, st.created_at, st.updated_at,
 (SELECT COUNT(*) FROM site_spaces x WHERE x.site_id = st.id),
 (SELECT x.space_id FROM site_spaces x WHERE x.id = st.default_site_space_id)`

func scanSite(sc interface{ Scan(...any) error }) (Site, error) {
	var s Site
	var hostname, proxy, icon, defSpace, defSection, defSpaceID sql.NullString
	var schemaAt, rotated, created, updated int64
	if err := sc.Scan(&s.ID, &s.OrganizationID, &s.Type, &s.Title, &s.Basename, &hostname, &proxy, &s.Visibility, &s.Published,
		&s.AdaptiveContent, &s.AgentsContext, &icon, &defSpace, &defSection, &s.StructureVersion,
		&s.AdaptiveSchema, &schemaAt, &s.VisitorSecret, &rotated, &created, &updated, &s.SiteSpaces, &defSpaceID); err != nil {
		return s, notFound(err)
	}
	s.Hostname, s.Proxy, s.Icon = nullStr(hostname), nullStr(proxy), nullStr(icon)
	s.DefaultSiteSpaceID, s.DefaultSectionID, s.DefaultSpaceID = nullStr(defSpace), nullStr(defSection), nullStr(defSpaceID)
	s.AdaptiveSchemaUpdatedAt, s.VisitorSecretRotatedAt = FromMillis(schemaAt), FromMillis(rotated)
	s.CreatedAt, s.UpdatedAt = FromMillis(created), FromMillis(updated)
	return s, nil
}

// Site reads a site of orgID; ErrNotFound when it belongs to another.
func (db *DB) Site(ctx context.Context, orgID, id string) (Site, error) {
	return scanSite(db.r().QueryRowContext(ctx, `SELECT `+siteCols+` FROM sites st WHERE st.id = ? AND st.organization_id = ?`, id, orgID))
}

// SiteFilter narrows the sites list; zero values do not filter.
type SiteFilter struct {
	SpaceID   string   // sites holding this space
	Title     string   // case-insensitive substring
	Published *bool    // published or not
	Types     []string // any of these types
}

// ListSites pages through orgID's sites, oldest first.
func (db *DB) ListSites(ctx context.Context, orgID string, f SiteFilter, pq PageQuery) (Page[Site], error) {
	from := `FROM sites st WHERE st.organization_id = ?`
	args := []any{orgID}
	if f.SpaceID != "" {
		from += ` AND EXISTS (SELECT 1 FROM site_spaces x WHERE x.site_id = st.id AND x.space_id = ?)`
		args = append(args, f.SpaceID)
	}
	if f.Title != "" {
		from += ` AND lower(st.title) LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscape(strings.ToLower(f.Title))+"%")
	}
	if f.Published != nil {
		from += ` AND st.published = ?`
		args = append(args, boolInt(*f.Published))
	}
	if len(f.Types) > 0 {
		from += ` AND st.type IN (?` + strings.Repeat(", ?", len(f.Types)-1) + `)`
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	spec := listSpec{Select: siteCols, From: from, Args: args, SortCol: "st.created_at", IDCol: "st.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Site, Cursor, error) {
		s, err := scanSite(rows)
		return s, Cursor{N: s.CreatedAt.UnixMilli(), ID: s.ID}, err
	})
}

// NameChoice picks a generated name inside the write that uses it, so it is
// free when inserted: Choose gets the names already taken that start with
// Prefix (one range read on the unique index) and returns one that is not.
type NameChoice struct {
	Prefix string
	Choose func(taken map[string]bool) string
}

// CreateSite inserts s (its ID, timestamps and structure version are filled
// in) with site spaces at its root, in order. newSpace, when set, is created
// first (at the end of the organization's top level, with an empty first
// revision); site spaces with an empty SpaceID point at it. With basename
// set, s.Basename is chosen by it in the same transaction.
func (db *DB) CreateSite(ctx context.Context, s *Site, newSpace *Space, spaces []SiteSpace, basename *NameChoice) error {
	s.ID = NewID()
	write := db.Write
	if s.Hostname == nil {
		write = func(ctx context.Context, fn func(*Tx) error) error { return db.writeOrg(ctx, s.OrganizationID, fn) }
	}
	return write(ctx, func(tx *Tx) error {
		if basename != nil {
			// Basenames are ASCII slugs: every one starting with Prefix sorts
			// between Prefix and Prefix followed by 0x7f (DEL, above every
			// printable character, and valid UTF-8 as PostgreSQL text must be).
			names, err := queryIDs(tx, `SELECT basename FROM sites WHERE organization_id = ? AND basename >= ? AND basename < ?`,
				s.OrganizationID, basename.Prefix, basename.Prefix+"\x7f")
			if err != nil {
				return err
			}
			taken := make(map[string]bool, len(names))
			for _, n := range names {
				taken[n] = true
			}
			s.Basename = basename.Choose(taken)
		}
		s.CreatedAt, s.UpdatedAt, s.AdaptiveSchemaUpdatedAt, s.VisitorSecretRotatedAt = tx.Now, tx.Now, tx.Now, tx.Now
		if newSpace != nil {
			newSpace.ID, newSpace.RevisionID, newSpace.ParentID = NewID(), NewID(), nil
			if err := insertSpaceAtEnd(tx, newSpace); err != nil {
				return err
			}
		}
		for i := range spaces {
			spaces[i].ID, spaces[i].SiteID, spaces[i].Position = NewID(), s.ID, i+1
			if spaces[i].SpaceID == "" && newSpace != nil {
				spaces[i].SpaceID = newSpace.ID
			}
		}
		if len(spaces) > 0 {
			s.DefaultSiteSpaceID = &spaces[0].ID
		}
		_, err := tx.exec(`INSERT INTO sites (id, organization_id, type, title, basename, hostname, proxy, visibility, published,
 adaptive_content, agents_context, icon, default_site_space_id, default_section_id, structure_version,
 adaptive_schema, adaptive_schema_updated_at, visitor_secret, visitor_secret_rotated_at, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.OrganizationID, s.Type, s.Title, s.Basename, strOrNil(s.Hostname), strOrNil(s.Proxy), s.Visibility, boolInt(s.Published),
			boolInt(s.AdaptiveContent), s.AgentsContext, strOrNil(s.Icon), strOrNil(s.DefaultSiteSpaceID),
			s.AdaptiveSchema, ms(tx.Now), s.VisitorSecret, ms(tx.Now), ms(tx.Now), ms(tx.Now))
		if err != nil {
			return uniqueAs(err, ErrBasenameTaken)
		}
		for i := range spaces {
			spaces[i].CreatedAt = tx.Now
			if err := insertSiteSpace(tx, &spaces[i], ""); err != nil {
				return err
			}
		}
		s.SiteSpaces = len(spaces)
		return nil
	})
}

// SitePatch holds the site fields to change; nil leaves a field as it is.
type SitePatch struct {
	Title           *string
	Visibility      *string
	Basename        *string
	Hostname        **string
	Proxy           **string
	Icon            **string
	AdaptiveContent *bool
	AgentsContext   *string
	Published       *bool
	AdaptiveSchema  *string // also sets its updatedAt
	VisitorSecret   *string // also sets its rotation time
}

// UpdateSite applies p; a taken basename or hostname is refused.
func (db *DB) UpdateSite(ctx context.Context, orgID, id string, p SitePatch) error {
	write := db.Write
	if p.Hostname == nil {
		write = func(ctx context.Context, fn func(*Tx) error) error { return db.writeOrg(ctx, orgID, fn) }
	}
	return write(ctx, func(tx *Tx) error {
		set, args := []string{"updated_at = ?"}, []any{ms(tx.Now)}
		add := func(col string, v any) { set, args = append(set, col+" = ?"), append(args, v) }
		if p.Title != nil {
			add("title", *p.Title)
		}
		if p.Visibility != nil {
			add("visibility", *p.Visibility)
		}
		if p.Basename != nil {
			add("basename", *p.Basename)
		}
		if p.Hostname != nil {
			add("hostname", strOrNil(*p.Hostname))
		}
		if p.Proxy != nil {
			add("proxy", strOrNil(*p.Proxy))
		}
		if p.Icon != nil {
			add("icon", strOrNil(*p.Icon))
		}
		if p.AdaptiveContent != nil {
			add("adaptive_content", boolInt(*p.AdaptiveContent))
		}
		if p.AgentsContext != nil {
			add("agents_context", *p.AgentsContext)
		}
		if p.Published != nil {
			add("published", boolInt(*p.Published))
		}
		if p.AdaptiveSchema != nil {
			add("adaptive_schema", *p.AdaptiveSchema)
			add("adaptive_schema_updated_at", ms(tx.Now))
		}
		if p.VisitorSecret != nil {
			add("visitor_secret", *p.VisitorSecret)
			add("visitor_secret_rotated_at", ms(tx.Now))
		}
		res, err := tx.exec(`UPDATE sites SET `+strings.Join(set, ", ")+` WHERE id = ? AND organization_id = ?`, append(args, id, orgID)...)
		if err != nil {
			if strings.Contains(err.Error(), "hostname") {
				return uniqueAs(err, ErrHostnameTaken)
			}
			return uniqueAs(err, ErrBasenameTaken)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// siteRemovalHooks let other families delete rows that point at a site
// (integration site installations) in the deleting transaction.
var siteRemovalHooks []func(tx *Tx, siteID string) error

// DeleteSite removes a site with its structure and share links (the spaces
// stay) and what siteRemovalHooks remove; false when it did not exist.
func (db *DB) DeleteSite(ctx context.Context, orgID, id string) (bool, error) {
	var n int64
	err := db.writeOrg(ctx, orgID, func(tx *Tx) error {
		var one int
		if err := tx.QueryRowContext(tx.ctx, `SELECT 1 FROM sites WHERE id = ? AND organization_id = ?`, id, orgID).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				tx.unchanged()
				return nil
			}
			return err
		}
		for _, hook := range siteRemovalHooks {
			if err := hook(tx, id); err != nil {
				return err
			}
		}
		res, err := tx.exec(`DELETE FROM sites WHERE id = ? AND organization_id = ?`, id, orgID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		// An organization whose default content was this site loses it.
		_, err = tx.exec(`UPDATE organizations SET default_content_site = NULL WHERE id = ? AND default_content_site = ?`, orgID, id)
		return err
	})
	return n > 0, err
}

// SitesByIDs reads the sites of any organization with these ids (those
// that exist) in one query.
func (db *DB) SitesByIDs(ctx context.Context, ids []string) (map[string]Site, error) {
	out := make(map[string]Site, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	// IN lists vary in length: unprepared (see fillSectionSpaces).
	rows, err := db.read.QueryContext(ctx, `SELECT `+siteCols+` FROM sites st WHERE st.id IN (`+placeholders(len(ids))+`)`, anySlice(ids)...)
	sites, err := collect(rows, err, scanSite)
	for _, s := range sites {
		out[s.ID] = s
	}
	return out, err
}

// SitesOfSpace lists the sites (of any organization) holding a space.
func (db *DB) SitesOfSpace(ctx context.Context, spaceID string) ([]Site, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT `+siteCols+` FROM sites st WHERE st.id IN (SELECT site_id FROM site_spaces WHERE space_id = ?) ORDER BY st.created_at, st.id`, spaceID)
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

// ShareLink is a secret key giving access to a share-link site. ExpiresAt
// (nil: never) and PasswordHash (bcrypt, "" without a password) are checked
// by the resolvers wherever a key is accepted.
type ShareLink struct {
	ID           string
	SiteID       string
	Name         string
	Key          string
	Active       bool
	CreatedAt    time.Time
	ExpiresAt    *time.Time
	PasswordHash string
}

const shareLinkCols = `l.id, l.site_id, l.name, l.share_key, l.active, l.created_at, l.expires_at, COALESCE(l.password_hash, '')`

func scanShareLink(sc interface{ Scan(...any) error }) (ShareLink, error) {
	var l ShareLink
	var created int64
	var expires sql.NullInt64
	if err := sc.Scan(&l.ID, &l.SiteID, &l.Name, &l.Key, &l.Active, &created, &expires, &l.PasswordHash); err != nil {
		return l, notFound(err)
	}
	l.CreatedAt, l.ExpiresAt = FromMillis(created), nullMillis(expires)
	return l, nil
}

func (db *DB) ShareLink(ctx context.Context, siteID, id string) (ShareLink, error) {
	return scanShareLink(db.r().QueryRowContext(ctx, `SELECT `+shareLinkCols+` FROM site_share_links l WHERE l.id = ? AND l.site_id = ?`, id, siteID))
}

// ShareLinkByKey finds a share link of any site by its secret key.
func (db *DB) ShareLinkByKey(ctx context.Context, key string) (ShareLink, error) {
	return scanShareLink(db.r().QueryRowContext(ctx, `SELECT `+shareLinkCols+` FROM site_share_links l WHERE l.share_key = ?`, key))
}

// ListShareLinks pages through a site's share links, oldest first.
func (db *DB) ListShareLinks(ctx context.Context, siteID string, pq PageQuery) (Page[ShareLink], error) {
	spec := listSpec{Select: shareLinkCols, From: `FROM site_share_links l WHERE l.site_id = ?`, Args: []any{siteID}, SortCol: "l.created_at", IDCol: "l.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (ShareLink, Cursor, error) {
		l, err := scanShareLink(rows)
		return l, Cursor{N: l.CreatedAt.UnixMilli(), ID: l.ID}, err
	})
}

// CreateShareLink inserts an active link (l.ID and l.CreatedAt are filled in;
// l.Key is the caller's random key, l.ExpiresAt and l.PasswordHash optional).
func (db *DB) CreateShareLink(ctx context.Context, l *ShareLink) error {
	l.ID, l.Active = NewID(), true
	return db.writeOwned(ctx, siteOrgSQL, l.SiteID, func(tx *Tx) error {
		l.CreatedAt = tx.Now
		_, err := tx.exec(`INSERT INTO site_share_links (id, site_id, name, share_key, active, created_at, expires_at, password_hash) VALUES (?, ?, ?, ?, 1, ?, ?, NULLIF(?, ''))`,
			l.ID, l.SiteID, l.Name, l.Key, ms(tx.Now), timeOrNil(l.ExpiresAt), l.PasswordHash)
		return err
	})
}

// ShareLinkChange is a PATCH of a share link: nil fields stay; SetExpiresAt
// and SetPassword say whether ExpiresAt and PasswordHash replace the stored
// values (nil and "" clear them).
type ShareLinkChange struct {
	Name         *string
	Active       *bool
	SetExpiresAt bool
	ExpiresAt    *time.Time
	SetPassword  bool
	PasswordHash string
}

func (db *DB) UpdateShareLink(ctx context.Context, siteID, id string, c ShareLinkChange) error {
	return db.writeOwned(ctx, siteOrgSQL, siteID, func(tx *Tx) error {
		set, args := []string{"site_id = site_id"}, []any{}
		if c.Name != nil {
			set, args = append(set, "name = ?"), append(args, *c.Name)
		}
		if c.Active != nil {
			set, args = append(set, "active = ?"), append(args, boolInt(*c.Active))
		}
		if c.SetExpiresAt {
			set, args = append(set, "expires_at = ?"), append(args, timeOrNil(c.ExpiresAt))
		}
		if c.SetPassword {
			// Guesses at the old password say nothing about the new one.
			set, args = append(set, "password_hash = NULLIF(?, '')", "guess_tat = 0"), append(args, c.PasswordHash)
		}
		res, err := tx.exec(`UPDATE site_share_links SET `+strings.Join(set, ", ")+` WHERE id = ? AND site_id = ?`, append(args, id, siteID)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

func (db *DB) DeleteShareLink(ctx context.Context, siteID, id string) (bool, error) {
	var n int64
	err := db.writeOwned(ctx, siteOrgSQL, siteID, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM site_share_links WHERE id = ? AND site_id = ?`, id, siteID)
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

// TakeShareGuess spends one password guess of share link id from its
// budget: a burst of burst guesses, then one more every every. The budget
// is a row of the database (guess_tat, a generic cell rate algorithm's
// theoretical arrival time), so every process on the database draws from
// the same one. wait > 0: the budget is spent, nothing was taken, and the
// next guess is allowed after wait. A link that is gone takes nothing.
func (db *DB) TakeShareGuess(ctx context.Context, id string, now time.Time, every time.Duration, burst int) (wait time.Duration, err error) {
	// No cache depends on guess_tat: the change counter is left alone.
	err = db.writeTx(ctx, false, func(tx *Tx) error {
		var tat int64
		if err := tx.QueryRowContext(ctx, `SELECT guess_tat FROM site_share_links WHERE id = ?`, id).Scan(&tat); err != nil {
			return notFound(err)
		}
		next := max(tat, ms(now)) + every.Milliseconds()
		if over := next - ms(now) - int64(burst)*every.Milliseconds(); over > 0 {
			wait = time.Duration(over) * time.Millisecond
			return nil
		}
		_, err := tx.exec(`UPDATE site_share_links SET guess_tat = ? WHERE id = ?`, next, id)
		return err
	})
	return wait, err
}

// ReturnShareGuess gives back a guess TakeShareGuess took (the password
// was right: not a wrong guess).
func (db *DB) ReturnShareGuess(ctx context.Context, id string, every time.Duration) error {
	return db.writeTx(ctx, false, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE site_share_links SET guess_tat = guess_tat - ? WHERE id = ? AND guess_tat > 0`, every.Milliseconds(), id)
		return err
	})
}
