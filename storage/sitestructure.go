package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The structure of a site: section groups and sections at its root (or site
// spaces at its root when it has no sections), sections in groups, site
// spaces in sections. Resolvers read the whole structure, decide the change
// (graph/sitestructure.go) and hand back the whole new structure;
// SaveSiteStructure writes the difference in one transaction, refusing a
// plan made from a structure that changed meanwhile (ErrStale).

// SiteSectionGroup is a named group of sections at the root of a site.
type SiteSectionGroup struct {
	ID        string
	SiteID    string
	Title     string
	Icon      *string
	Position  int // increasing in the root sequence shared with root sections (gapped: graph positionsFor)
	SortKey   string
	CreatedAt time.Time
	Sections  []SiteSection // filled by ListSiteSectionGroups
}

// SiteSection is a section of a site: its site spaces are its variants.
type SiteSection struct {
	ID                 string
	SiteID             string
	GroupID            *string // nil: at the root
	Title              string
	Description        *string
	Icon               *string
	Path               string
	Condition          *string
	DefaultSiteSpaceID *string
	Position           int
	SortKey            string
	CreatedAt          time.Time
	Default            bool        // the site's default section (computed by reads)
	SiteSpaces         []SiteSpace // filled by the section and group lists
}

// SiteSpace links a space into a site, at the root or in a section.
type SiteSpace struct {
	ID        string
	SiteID    string
	SectionID *string // nil: at the root
	SpaceID   string
	Path      string
	Condition *string
	Position  int
	SortKey   string
	CreatedAt time.Time
	Default   bool  // the default of its section, or of the root (computed by reads)
	Space     Space // the linked space (reads only)
	// The section's path and whether it is the site's default section
	// (reads only: what published URLs need).
	SectionPath    string
	SectionDefault bool
}

// SiteStructure is a whole site structure, each slice in structure order.
// Version is the site's structure version the read saw.
type SiteStructure struct {
	Version            int64
	DefaultSiteSpaceID *string // default of the root
	DefaultSectionID   *string
	Groups             []SiteSectionGroup
	Sections           []SiteSection
	SiteSpaces         []SiteSpace
}

const groupCols = `g.id, g.site_id, g.title, g.icon, g.position, g.sort_key, g.created_at`

func scanGroup(sc interface{ Scan(...any) error }) (SiteSectionGroup, error) {
	var g SiteSectionGroup
	var icon sql.NullString
	var pos string
	var created int64
	if err := sc.Scan(&g.ID, &g.SiteID, &g.Title, &icon, &pos, &g.SortKey, &created); err != nil {
		return g, notFound(err)
	}
	g.Icon, g.Position, g.CreatedAt = nullStr(icon), int(posValue(pos)), FromMillis(created)
	return g, nil
}

// sectionCols ends with the section's default flag (st is the site).
const sectionCols = `sec.id, sec.site_id, sec.group_id, sec.title, sec.description, sec.icon, sec.path, sec.condition,
 sec.default_site_space_id, sec.position, sec.sort_key, sec.created_at, CASE WHEN st.default_section_id = sec.id THEN 1 ELSE 0 END`

func scanSection(sc interface{ Scan(...any) error }) (SiteSection, error) {
	var s SiteSection
	var group, desc, icon, cond, def sql.NullString
	var pos string
	var created int64
	if err := sc.Scan(&s.ID, &s.SiteID, &group, &s.Title, &desc, &icon, &s.Path, &cond, &def, &pos, &s.SortKey, &created, &s.Default); err != nil {
		return s, notFound(err)
	}
	s.GroupID, s.Description, s.Icon, s.Condition, s.DefaultSiteSpaceID = nullStr(group), nullStr(desc), nullStr(icon), nullStr(cond), nullStr(def)
	s.Position, s.CreatedAt = int(posValue(pos)), FromMillis(created)
	return s, nil
}

// siteSpaceCols ends with the site space's default flag (st is the site,
// sec its section when it has one) and the linked space's columns.
const siteSpaceCols = `ss.id, ss.site_id, ss.section_id, ss.space_id, ss.path, ss.condition, ss.position, ss.sort_key, ss.created_at,
 CASE WHEN COALESCE(CASE WHEN ss.section_id IS NULL THEN st.default_site_space_id ELSE sec.default_site_space_id END, '') = ss.id THEN 1 ELSE 0 END,
 COALESCE(sec.path, ''), CASE WHEN st.default_section_id = ss.section_id THEN 1 ELSE 0 END, ` + spaceCols

const siteSpaceFrom = `FROM site_spaces ss JOIN sites st ON st.id = ss.site_id JOIN spaces s ON s.id = ss.space_id` + spaceGitJoin + `
 LEFT JOIN site_sections sec ON sec.id = ss.section_id`

func scanSiteSpace(sc interface{ Scan(...any) error }) (SiteSpace, error) {
	var ss SiteSpace
	var section, cond sql.NullString
	var pos string
	var created int64
	// The space's columns follow; scanSpace reads them through the same row.
	row := &prefixScanner{sc: sc, head: []any{&ss.ID, &ss.SiteID, &section, &ss.SpaceID, &ss.Path, &cond, &pos, &ss.SortKey, &created, &ss.Default, &ss.SectionPath, &ss.SectionDefault}}
	sp, err := scanSpace(row)
	if err != nil {
		return ss, err
	}
	ss.SectionID, ss.Condition, ss.Position, ss.CreatedAt, ss.Space = nullStr(section), nullStr(cond), int(posValue(pos)), FromMillis(created), sp
	return ss, nil
}

// prefixScanner lets a row scanner read leading columns into head before
// handing the rest to another scanner.
type prefixScanner struct {
	sc   interface{ Scan(...any) error }
	head []any
}

func (p *prefixScanner) Scan(dest ...any) error { return p.sc.Scan(append(p.head, dest...)...) }

// PublishedSiteSpaceOf is the first site space holding spaceID in a
// published site of orgID (sites oldest first), with its default flag and
// section path: ErrNotFound when no published site holds the space. One
// indexed lookup (site_spaces_by_space), whatever the sites' sizes.
func (db *DB) PublishedSiteSpaceOf(ctx context.Context, orgID, spaceID string) (SiteSpace, error) {
	ss, err := scanSiteSpace(db.r().QueryRowContext(ctx, `SELECT `+siteSpaceCols+` `+siteSpaceFrom+`
 WHERE ss.space_id = ? AND st.organization_id = ? AND st.published = 1 ORDER BY st.created_at, st.id, ss.sort_key, ss.id LIMIT 1`, spaceID, orgID))
	return ss, notFound(err)
}

// SiteStructure reads a whole structure in one snapshot.
func (db *DB) SiteStructure(ctx context.Context, siteID string) (SiteStructure, error) {
	var st SiteStructure
	err := db.ReadTx(ctx, func(q queryer) error {
		var err error
		st, err = readStructure(ctx, q, siteID)
		return err
	})
	return st, err
}

func readStructure(ctx context.Context, q queryer, siteID string) (SiteStructure, error) {
	var st SiteStructure
	var defSpace, defSection sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT structure_version, default_site_space_id, default_section_id FROM sites WHERE id = ?`, siteID).
		Scan(&st.Version, &defSpace, &defSection); err != nil {
		return st, notFound(err)
	}
	st.DefaultSiteSpaceID, st.DefaultSectionID = nullStr(defSpace), nullStr(defSection)
	rows, err := q.QueryContext(ctx, `SELECT `+groupCols+` FROM site_section_groups g WHERE g.site_id = ? ORDER BY g.sort_key, g.id`, siteID)
	if st.Groups, err = collect(rows, err, scanGroup); err != nil {
		return st, err
	}
	rows, err = q.QueryContext(ctx, `SELECT `+sectionCols+` FROM site_sections sec JOIN sites st ON st.id = sec.site_id
 WHERE sec.site_id = ? ORDER BY sec.sort_key, sec.id`, siteID)
	if st.Sections, err = collect(rows, err, scanSection); err != nil {
		return st, err
	}
	rows, err = q.QueryContext(ctx, `SELECT `+siteSpaceCols+` `+siteSpaceFrom+` WHERE ss.site_id = ? ORDER BY ss.sort_key, ss.id`, siteID)
	st.SiteSpaces, err = collect(rows, err, scanSiteSpace)
	return st, err
}

// SaveSiteStructure makes the stored structure equal to st: rows missing
// from st are deleted, new ones inserted, changed ones updated, and sort
// keys follow the containers and positions of st. st.Version must be the
// version the plan was made from (ErrStale otherwise); it is bumped.
func (db *DB) SaveSiteStructure(ctx context.Context, siteID string, st SiteStructure) error {
	return db.writeOwned(ctx, siteOrgSQL, siteID, func(tx *Tx) error {
		if err := setStructureHead(tx, siteID, st, &st.Version); err != nil {
			return err
		}
		cur, err := readStructure(tx.ctx, tx, siteID)
		if err != nil {
			return err
		}
		return writeStructureDiff(tx, siteID, cur, st)
	})
}

// setStructureHead bumps a site's structure version and sets its defaults;
// with version set, only when the stored version is that one (ErrStale
// otherwise).
func setStructureHead(tx *Tx, siteID string, st SiteStructure, version *int64) error {
	q, args := `UPDATE sites SET structure_version = structure_version + 1, default_site_space_id = ?, default_section_id = ?, updated_at = ?
 WHERE id = ?`, []any{strOrNil(st.DefaultSiteSpaceID), strOrNil(st.DefaultSectionID), ms(tx.Now), siteID}
	if version != nil {
		q, args = q+` AND structure_version = ?`, append(args, *version)
	}
	res, err := tx.exec(q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var one int
		if err := tx.QueryRowContext(tx.ctx, `SELECT 1 FROM sites WHERE id = ?`, siteID).Scan(&one); err != nil {
			return notFound(err)
		}
		return ErrStale
	}
	return nil
}

func writeStructureDiff(tx *Tx, siteID string, cur, next SiteStructure) error {
	groupKeys, sectionKeys := map[string]string{}, map[string]string{}
	under := func(keys map[string]string, container *string, pos int) string {
		if container == nil {
			return posKey(int64(pos))
		}
		return keys[*container] + "/" + posKey(int64(pos))
	}
	keep := map[string]bool{}

	oldGroups := map[string]SiteSectionGroup{}
	for _, g := range cur.Groups {
		oldGroups[g.ID] = g
	}
	for _, g := range next.Groups {
		key := posKey(int64(g.Position))
		groupKeys[g.ID], keep[g.ID] = key, true
		old, ok := oldGroups[g.ID]
		switch {
		case !ok:
			if _, err := tx.exec(`INSERT INTO site_section_groups (id, site_id, title, icon, position, sort_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				g.ID, siteID, g.Title, strOrNil(g.Icon), posKey(int64(g.Position)), key, ms(tx.Now)); err != nil {
				return err
			}
		case old.Title != g.Title || !samePtr(old.Icon, g.Icon) || old.Position != g.Position || old.SortKey != key:
			if _, err := tx.exec(`UPDATE site_section_groups SET title = ?, icon = ?, position = ?, sort_key = ? WHERE id = ?`,
				g.Title, strOrNil(g.Icon), posKey(int64(g.Position)), key, g.ID); err != nil {
				return err
			}
		}
	}

	oldSections := map[string]SiteSection{}
	for _, s := range cur.Sections {
		oldSections[s.ID] = s
	}
	for _, s := range next.Sections {
		key := under(groupKeys, s.GroupID, s.Position)
		sectionKeys[s.ID], keep[s.ID] = key, true
		old, ok := oldSections[s.ID]
		args := []any{strOrNil(s.GroupID), s.Title, strOrNil(s.Description), strOrNil(s.Icon), s.Path, strOrNil(s.Condition),
			strOrNil(s.DefaultSiteSpaceID), posKey(int64(s.Position)), key}
		switch {
		case !ok:
			if _, err := tx.exec(`INSERT INTO site_sections (group_id, title, description, icon, path, condition, default_site_space_id, position, sort_key, id, site_id, created_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, s.ID, siteID, ms(tx.Now))...); err != nil {
				return err
			}
		case !samePtr(old.GroupID, s.GroupID) || old.Title != s.Title || !samePtr(old.Description, s.Description) || !samePtr(old.Icon, s.Icon) ||
			old.Path != s.Path || !samePtr(old.Condition, s.Condition) || !samePtr(old.DefaultSiteSpaceID, s.DefaultSiteSpaceID) ||
			old.Position != s.Position || old.SortKey != key:
			if _, err := tx.exec(`UPDATE site_sections SET group_id = ?, title = ?, description = ?, icon = ?, path = ?, condition = ?,
 default_site_space_id = ?, position = ?, sort_key = ? WHERE id = ?`, append(args, s.ID)...); err != nil {
				return err
			}
		}
	}

	oldSpaces := map[string]SiteSpace{}
	for _, ss := range cur.SiteSpaces {
		oldSpaces[ss.ID] = ss
	}
	for _, ss := range next.SiteSpaces {
		key := under(sectionKeys, ss.SectionID, ss.Position)
		keep[ss.ID] = true
		old, ok := oldSpaces[ss.ID]
		switch {
		case !ok:
			ss.SiteID, ss.CreatedAt = siteID, tx.Now
			if err := insertSiteSpace(tx, &ss, key); err != nil {
				return err
			}
		case !samePtr(old.SectionID, ss.SectionID) || old.SpaceID != ss.SpaceID || old.Path != ss.Path || !samePtr(old.Condition, ss.Condition) ||
			old.Position != ss.Position || old.SortKey != key:
			if _, err := tx.exec(`UPDATE site_spaces SET section_id = ?, space_id = ?, path = ?, condition = ?, position = ?, sort_key = ? WHERE id = ?`,
				strOrNil(ss.SectionID), ss.SpaceID, ss.Path, strOrNil(ss.Condition), posKey(int64(ss.Position)), key, ss.ID); err != nil {
				return err
			}
		}
	}

	for _, ss := range cur.SiteSpaces {
		if !keep[ss.ID] {
			if _, err := tx.exec(`DELETE FROM site_spaces WHERE id = ?`, ss.ID); err != nil {
				return err
			}
		}
	}
	for _, s := range cur.Sections {
		if !keep[s.ID] {
			if _, err := tx.exec(`DELETE FROM site_sections WHERE id = ?`, s.ID); err != nil {
				return err
			}
		}
	}
	for _, g := range cur.Groups {
		if !keep[g.ID] {
			if _, err := tx.exec(`DELETE FROM site_section_groups WHERE id = ?`, g.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// insertSiteSpace adds a site space; key "" is its root sort key.
func insertSiteSpace(tx *Tx, ss *SiteSpace, key string) error {
	if key == "" {
		key = posKey(int64(ss.Position))
	}
	ss.SortKey = key
	_, err := tx.exec(`INSERT INTO site_spaces (id, site_id, section_id, space_id, path, condition, position, sort_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ss.ID, ss.SiteID, strOrNil(ss.SectionID), ss.SpaceID, ss.Path, strOrNil(ss.Condition), posKey(int64(ss.Position)), key, ms(ss.CreatedAt))
	return err
}

// ListSiteSpaces pages through a site's site spaces in structure order;
// def keeps only the defaults (true) or only the others (false).
func (db *DB) ListSiteSpaces(ctx context.Context, siteID string, def *bool, pq PageQuery) (Page[SiteSpace], error) {
	from := siteSpaceFrom + ` WHERE ss.site_id = ?`
	if def != nil {
		cmp := "<>"
		if *def {
			cmp = "="
		}
		from += ` AND COALESCE(CASE WHEN ss.section_id IS NULL THEN st.default_site_space_id ELSE sec.default_site_space_id END, '') ` + cmp + ` ss.id`
	}
	spec := listSpec{Select: siteSpaceCols, From: from, Args: []any{siteID}, SortCol: "ss.sort_key", IDCol: "ss.id", Text: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (SiteSpace, Cursor, error) {
		ss, err := scanSiteSpace(rows)
		return ss, Cursor{S: ss.SortKey, ID: ss.ID}, err
	})
}

// ListSiteSections pages through a site's sections in structure order,
// each with its site spaces (one more query for the whole page).
func (db *DB) ListSiteSections(ctx context.Context, siteID string, pq PageQuery) (Page[SiteSection], error) {
	spec := listSpec{Select: sectionCols, From: `FROM site_sections sec JOIN sites st ON st.id = sec.site_id WHERE sec.site_id = ?`,
		Args: []any{siteID}, SortCol: "sec.sort_key", IDCol: "sec.id", Text: true}
	p, err := runList(ctx, db, spec, pq, func(rows *sql.Rows) (SiteSection, Cursor, error) {
		s, err := scanSection(rows)
		return s, Cursor{S: s.SortKey, ID: s.ID}, err
	})
	if err != nil {
		return p, err
	}
	return p, db.fillSectionSpaces(ctx, p.Items)
}

// fillSectionSpaces loads the site spaces of sections with one query.
func (db *DB) fillSectionSpaces(ctx context.Context, sections []SiteSection) error {
	if len(sections) == 0 {
		return nil
	}
	args := make([]any, len(sections))
	at := map[string]int{}
	for i, s := range sections {
		args[i], at[s.ID] = s.ID, i
	}
	// IN lists vary in length: these run unprepared rather than filling the
	// statement cache with one entry per page size.
	rows, err := db.read.QueryContext(ctx, `SELECT `+siteSpaceCols+` `+siteSpaceFrom+` WHERE ss.section_id IN (?`+
		strings.Repeat(", ?", len(args)-1)+`) ORDER BY ss.sort_key, ss.id`, args...)
	spaces, err := collect(rows, err, scanSiteSpace)
	if err != nil {
		return err
	}
	for _, ss := range spaces {
		i := at[*ss.SectionID]
		sections[i].SiteSpaces = append(sections[i].SiteSpaces, ss)
	}
	return nil
}

// ListSiteSectionGroups pages through a site's groups in structure order,
// each with its sections and their site spaces (two more queries).
func (db *DB) ListSiteSectionGroups(ctx context.Context, siteID string, pq PageQuery) (Page[SiteSectionGroup], error) {
	spec := listSpec{Select: groupCols, From: `FROM site_section_groups g WHERE g.site_id = ?`, Args: []any{siteID},
		SortCol: "g.sort_key", IDCol: "g.id", Text: true}
	p, err := runList(ctx, db, spec, pq, func(rows *sql.Rows) (SiteSectionGroup, Cursor, error) {
		g, err := scanGroup(rows)
		return g, Cursor{S: g.SortKey, ID: g.ID}, err
	})
	if err != nil || len(p.Items) == 0 {
		return p, err
	}
	args := make([]any, len(p.Items))
	at := map[string]int{}
	for i, g := range p.Items {
		args[i], at[g.ID] = g.ID, i
	}
	rows, err := db.read.QueryContext(ctx, `SELECT `+sectionCols+` FROM site_sections sec JOIN sites st ON st.id = sec.site_id
 WHERE sec.group_id IN (?`+strings.Repeat(", ?", len(args)-1)+`) ORDER BY sec.sort_key, sec.id`, args...)
	sections, err := collect(rows, err, scanSection)
	if err != nil {
		return p, err
	}
	if err := db.fillSectionSpaces(ctx, sections); err != nil {
		return p, err
	}
	for _, s := range sections {
		i := at[*s.GroupID]
		p.Items[i].Sections = append(p.Items[i].Sections, s)
	}
	return p, nil
}

// SpaceLeavesSite plans a site's structure once a space left it: st is the
// structure read in the leaving transaction (the planner may change it),
// the answer the whole structure to save. The resolvers set it
// (OnSpaceLeavesSites): the structure rules are theirs.
type SpaceLeavesSite func(st SiteStructure, spaceID string) SiteStructure

// OnSpaceLeavesSites sets the planner of structures a space leaves; without
// one its site spaces are only deleted.
func (db *DB) OnSpaceLeavesSites(fn SpaceLeavesSite) { db.spaceLeaves.Store(&fn) }

func init() {
	// A space purged from the trash, or transferred to another organization
	// (alone or with its collection), leaves every site of the organization
	// it was in, in the same transaction.
	spaceRemovalHooks = append(spaceRemovalHooks, leaveSites)
	spaceTransferHooks = append(spaceTransferHooks, leaveSites)
}

// leaveSites saves, for every site holding the space, the structure the
// planner makes without it, bumping the structure version so that a change
// planned from the older structure is re-applied (editStructure).
func leaveSites(tx *Tx, spaceID string) error {
	siteIDs, err := queryIDs(tx, `SELECT DISTINCT site_id FROM site_spaces WHERE space_id = ?`, spaceID)
	if err != nil || len(siteIDs) == 0 {
		return err
	}
	plan := tx.db.spaceLeaves.Load()
	for _, id := range siteIDs {
		cur, err := readStructure(tx.ctx, tx, id)
		if err != nil {
			return err
		}
		// The planner works on a copy: cur stays what is stored.
		next := SiteStructure{Version: cur.Version, DefaultSiteSpaceID: cur.DefaultSiteSpaceID, DefaultSectionID: cur.DefaultSectionID,
			Groups: slices.Clone(cur.Groups), Sections: slices.Clone(cur.Sections), SiteSpaces: slices.Clone(cur.SiteSpaces)}
		if plan != nil {
			next = (*plan)(next, spaceID)
		} else {
			next.SiteSpaces = slices.DeleteFunc(next.SiteSpaces, func(ss SiteSpace) bool { return ss.SpaceID == spaceID })
		}
		if err := setStructureHead(tx, id, next, nil); err != nil {
			return err
		}
		if err := writeStructureDiff(tx, id, cur, next); err != nil {
			return err
		}
	}
	return nil
}

// posKey is the stored, fixed-width text of a site structure position:
// text order equals numeric order, and sort keys line up character by
// character.
func posKey(n int64) string { return fmt.Sprintf("%012d", n) }

func posValue(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
