package storage

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"
)

// Space is a container of content with an active revision. A space in the
// trash has DeletedAt set and is hidden from every list and read; the
// resolvers decide that, storage returns it as it is.
type Space struct {
	ID                  string
	OrganizationID      string
	ParentID            *string
	Title               string
	Emoji               *string
	Icon                *string
	Visibility          string
	EditMode            string
	DefaultLevel        *string // a role, "inherit", or nil (no default access)
	RevisionID          string
	Comments            int
	ChangeRequests      int
	ChangeRequestsOpen  int
	ChangeRequestsDraft int
	SortKey             string
	CreatedAt           time.Time
	UpdatedAt           time.Time
	DeletedAt           *time.Time
	// GitSync is the space's Git Sync set-up (nil when none was ever
	// requested), read with the space in the same statement.
	GitSync *SpaceGitSync
}

// SpaceGitSync is what a space shows of its Git Sync state.
type SpaceGitSync struct {
	URL, TreeURL, Provider string
	UpdatedAt              time.Time
}

const spaceCols = `s.id, s.organization_id, s.parent_id, s.title, s.emoji, s.icon, s.visibility, s.edit_mode, s.default_level,
 s.revision_id, s.comments, s.change_requests, s.change_requests_open, s.change_requests_draft, s.sort_key,
 s.created_at, s.updated_at, s.deleted_at,
 gs.url AS git_url, gs.tree_url AS git_tree_url, gs.provider AS git_provider, gs.updated_at AS git_updated_at`

// spaceGitJoin goes with spaceCols, right after "spaces s" in every FROM
// that selects them: the space's Git Sync state, one primary-key lookup
// per row (no row when the space was never set up for Git Sync).
const spaceGitJoin = ` LEFT JOIN git_sync_states gs ON gs.space_id = s.id`

func scanSpace(sc interface{ Scan(...any) error }) (Space, error) {
	var s Space
	var parent, emoji, icon, level sql.NullString
	var created, updated int64
	var deleted, gitUpdated sql.NullInt64
	var gitURL, gitTree, gitProvider sql.NullString
	if err := sc.Scan(&s.ID, &s.OrganizationID, &parent, &s.Title, &emoji, &icon, &s.Visibility, &s.EditMode, &level,
		&s.RevisionID, &s.Comments, &s.ChangeRequests, &s.ChangeRequestsOpen, &s.ChangeRequestsDraft, &s.SortKey,
		&created, &updated, &deleted, &gitURL, &gitTree, &gitProvider, &gitUpdated); err != nil {
		return s, notFound(err)
	}
	if gitURL.Valid {
		s.GitSync = &SpaceGitSync{URL: gitURL.String, TreeURL: gitTree.String, Provider: gitProvider.String, UpdatedAt: FromMillis(gitUpdated.Int64)}
	}
	s.ParentID, s.Emoji, s.Icon, s.DefaultLevel = nullStr(parent), nullStr(emoji), nullStr(icon), nullStr(level)
	s.CreatedAt, s.UpdatedAt, s.DeletedAt = FromMillis(created), FromMillis(updated), nullMillis(deleted)
	return s, nil
}

// Space reads a space of any organization, trashed or not.
func (db *DB) Space(ctx context.Context, id string) (Space, error) {
	return scanSpace(db.r().QueryRowContext(ctx, spaceByIDSQL, id))
}

const spaceByIDSQL = `SELECT ` + spaceCols + ` FROM spaces s` + spaceGitJoin + ` WHERE s.id = ?`

// SpacesByIDs reads the spaces with those ids (any organization, trashed or
// not) in one query; unknown ids are left out.
func (db *DB) SpacesByIDs(ctx context.Context, ids []string) (map[string]Space, error) {
	out := make(map[string]Space, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := db.r().QueryContext(ctx, `SELECT `+spaceCols+` FROM spaces s`+spaceGitJoin+` WHERE s.id IN (`+placeholders(len(ids))+`)`, anySlice(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		s, err := scanSpace(rows)
		if err != nil {
			return nil, err
		}
		out[s.ID] = s
	}
	return out, rows.Err()
}

// SpaceFilter selects and orders a list of live spaces of one organization.
type SpaceFilter struct {
	OrganizationID string
	ParentID       *string // only the spaces directly in this collection
	ByCreation     bool    // order by creation time instead of the stored tree order
	Desc           bool
	// Visible, when set, keeps only the spaces it names (the reader's view,
	// computed by the caller); nil keeps every space.
	Visible *SpaceVisibility
	// AlsoVisible, when set, keeps only the spaces it names as well: a
	// list seen through two views (a member's spaces as their reader
	// sees them), both selected in SQL.
	AlsoVisible *SpaceVisibility
}

// SpaceVisibility names a set of spaces: those with an id in IDs, those
// granted to Grantee, and those that fall in one of Classes. Storage only
// turns it into SQL: who sees what is decided by the caller
// (graph/permissions.go).
type SpaceVisibility struct {
	IDs     []string
	Grantee *SpaceGrantee
	// Installation, when set, names the spaces that installation is
	// installed on (its space targets): looked up by primary key per row,
	// and read in list order from integration_targets_by_space_order
	// (migration 0030j) by the merged form, never as a list of ids.
	Installation string
	Classes      []SpaceClass
	// Everywhere lists the visibilities the Classes admit at every parent
	// and level (for a member: public and unlisted). The same set, said
	// once more: the merged form (visibleSpaceRanges) reads them as one
	// range each instead of within every collection's.
	Everywhere []string
}

// SpaceGrantee is a member and their teams: the spaces granted to any of
// them (any role) in the space's organization. Selected by index per row
// (content_grants' primary key), not as a list of ids, so that the SQL
// stays the same whatever the number of grants; the list's total uses
// member_space_classes.
type SpaceGrantee struct {
	UserID  string
	TeamIDs []string
}

// SpaceClass is the spaces directly under one of Parents (and at the top
// level when TopLevel) whose visibility and default level match one of
// Kinds. An empty Kinds matches every space there.
type SpaceClass struct {
	Parents  []string
	TopLevel bool
	Kinds    []SpaceKinds
}

// SpaceKinds is spaces with one of Visibilities and, unless AnyLevel, one
// of Levels as default level (a nil entry: no default level).
type SpaceKinds struct {
	Visibilities []string
	AnyLevel     bool
	Levels       []*string
}

// visCols names the columns a visibility condition tests: those of a
// spaces row (s), or of a class row of space_class_counts or
// member_space_classes, where no parent and no default level are empty
// strings.
type visCols struct {
	parent, topLevel, visibility, level, noLevel string
}

var spaceRowCols = visCols{"s.parent_id", "s.parent_id IS NULL", "s.visibility", "s.default_level", "s.default_level IS NULL"}

func classCols(alias string) visCols {
	return visCols{alias + ".parent_id", alias + ".parent_id = ''", alias + ".visibility", alias + ".default_level", alias + ".default_level = ''"}
}

// sql is the condition on spaces s. Its values are written as SQL string
// literals, not bound: SQLite re-prepares a statement on every run when it
// rebinds parameters past the 31st that the planner looked at, which cost
// more than the whole page. The values are ids and enum values, quoted.
func (v *SpaceVisibility) sql() string { return v.cond(spaceRowCols, true) }

// cond is the condition on the columns c; rows adds the conditions only a
// spaces row can answer (IDs, Grantee).
func (v *SpaceVisibility) cond(c visCols, rows bool) string {
	var b strings.Builder
	in := func(col string, vals []string) {
		b.WriteString(col + " IN (")
		for i, x := range vals {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sqlString(x))
		}
		b.WriteString(")")
	}
	or := func(first *bool) {
		if !*first {
			b.WriteString(" OR ")
		}
		*first = false
	}
	b.WriteString("(")
	first := true
	if rows && len(v.IDs) > 0 {
		or(&first)
		in("s.id", v.IDs)
	}
	if rows && v.Installation != "" {
		or(&first)
		b.WriteString("EXISTS (SELECT 1 FROM integration_target_installations t WHERE t.installation_id = " + sqlString(v.Installation) +
			" AND t.kind = 'space' AND t.target_id = s.id)")
	}
	for _, cl := range v.Classes {
		if len(cl.Parents) == 0 && !cl.TopLevel {
			continue
		}
		or(&first)
		b.WriteString("((")
		p := true
		if len(cl.Parents) > 0 {
			or(&p)
			in(c.parent, cl.Parents)
		}
		if cl.TopLevel {
			or(&p)
			b.WriteString(c.topLevel)
		}
		b.WriteString(")")
		if len(cl.Kinds) > 0 {
			b.WriteString(" AND " + kindsCond(c, cl.Kinds))
		}
		b.WriteString(")")
	}
	if rows && v.Grantee != nil {
		// After the classes: SQLite tries OR terms in order, so the grant
		// lookup runs only for rows no class admits.
		or(&first)
		b.WriteString("EXISTS (SELECT 1 FROM content_grants g WHERE g.target_kind = 'space' AND g.target_id = s.id AND g.organization_id = s.organization_id AND ((g.principal_kind = 'user' AND g.principal_id = ")
		b.WriteString(sqlString(v.Grantee.UserID) + ")")
		if len(v.Grantee.TeamIDs) > 0 {
			b.WriteString(" OR (g.principal_kind = 'team' AND ")
			in("g.principal_id", v.Grantee.TeamIDs)
			b.WriteString(")")
		}
		b.WriteString("))")
	}
	if first {
		b.WriteString("1 = 0") // names nothing
	}
	b.WriteString(")")
	return b.String()
}

// kindsCond is the condition on the columns c that a space is of one of
// kinds (not empty).
func kindsCond(c visCols, kinds []SpaceKinds) string {
	var b strings.Builder
	in := func(col string, vals []string) {
		b.WriteString(col + " IN (")
		for i, x := range vals {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sqlString(x))
		}
		b.WriteString(")")
	}
	b.WriteString("(")
	for i, kind := range kinds {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("(")
		in(c.visibility, kind.Visibilities)
		if !kind.AnyLevel {
			var levels []string
			null := false
			for _, l := range kind.Levels {
				if l == nil {
					null = true
				} else {
					levels = append(levels, *l)
				}
			}
			b.WriteString(" AND (")
			switch {
			case len(levels) > 0 && null:
				in(c.level, levels)
				b.WriteString(" OR " + c.noLevel)
			case null:
				b.WriteString(c.noLevel)
			default:
				in(c.level, levels)
			}
			b.WriteString(")")
		}
		b.WriteString(")")
	}
	b.WriteString(")")
	return b.String()
}

// sqlString is s as a standard SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ListSpaces pages through live spaces. keep, when set, drops the spaces
// the reader may not see in Go (see runFilteredList); f.Visible does it in
// SQL, and is what lists use.
func (db *DB) ListSpaces(ctx context.Context, f SpaceFilter, keep func(Space) bool, pq PageQuery) (Page[Space], error) {
	f, err := db.cheaperSideFirst(ctx, f)
	if err != nil {
		return Page[Space]{}, err
	}
	args := []any{f.OrganizationID}
	if f.ParentID != nil {
		args = append(args, *f.ParentID)
	}
	plan := spaceListPlanOf(f)
	spec := listSpec{Select: spaceCols, From: plan.from, Args: args, SortCol: "s.sort_key", IDCol: "s.id", Text: true, Desc: f.Desc,
		Dynamic: f.Visible != nil || f.AlsoVisible != nil,
		Cache:   keep == nil} // graph's spaceList reads the items only
	spec.CountParts = plan.count
	cursor := func(s Space) Cursor { return Cursor{S: s.SortKey, ID: s.ID} }
	if f.ByCreation {
		spec.SortCol, spec.Text = "s.created_at", false
		cursor = func(s Space) Cursor { return Cursor{N: s.CreatedAt.UnixMilli(), ID: s.ID} }
	}
	if keep == nil {
		spec.Merged = plan.merged
	}
	return runFilteredList(ctx, db, spec, pq, func(rows *sql.Rows) (Space, Cursor, error) {
		s, err := scanSpace(rows)
		return s, cursor(s), err
	}, keep)
}

// spaceListPlan is what a list of spaces reads, apart from the cursor:
// the scan's FROM ... WHERE, the parts of its total, and its merged form.
type spaceListPlan struct {
	from   string
	count  []countPart
	merged *mergedList
}

func newSpaceListPlan(f SpaceFilter) spaceListPlan {
	from := `FROM spaces s` + spaceGitJoin + ` WHERE s.organization_id = ? AND s.deleted_at IS NULL`
	if f.ParentID != nil {
		from += ` AND s.parent_id = ?`
	}
	for _, v := range []*SpaceVisibility{f.Visible, f.AlsoVisible} {
		if v != nil {
			from += ` AND ` + v.sql()
		}
	}
	return spaceListPlan{from: from, count: spaceCount(f), merged: visibleSpaceRanges(f)}
}

// spaceListPlans keeps the plans of recent views. A member's view
// (graph's visibleSpaces) is one shared value for as long as the member's
// access data is cached, and its plan is the same on every request: for a
// reader who sees into many collections, tens of kilobytes of SQL text
// (a range and a condition per collection) that would otherwise be written
// again for every page. Keyed by the views' identity (callers never change
// a view they passed), at most maxSpaceListPlans (it empties when full).
var spaceListPlans = struct {
	mu sync.Mutex
	m  map[spaceListKey]spaceListPlan
}{m: map[spaceListKey]spaceListPlan{}}

const maxSpaceListPlans = 256

type spaceListKey struct {
	org, parent          string
	inParent, byCreation bool
	visible, alsoVisible *SpaceVisibility
}

// spaceListPlanOf is f's plan, from spaceListPlans for a member's view.
func spaceListPlanOf(f SpaceFilter) spaceListPlan {
	if f.Visible == nil {
		return newSpaceListPlan(f)
	}
	k := spaceListKey{org: f.OrganizationID, inParent: f.ParentID != nil, byCreation: f.ByCreation, visible: f.Visible, alsoVisible: f.AlsoVisible}
	if f.ParentID != nil {
		k.parent = *f.ParentID
	}
	spaceListPlans.mu.Lock()
	p, ok := spaceListPlans.m[k]
	spaceListPlans.mu.Unlock()
	if ok {
		return p
	}
	p = newSpaceListPlan(f)
	spaceListPlans.mu.Lock()
	if len(spaceListPlans.m) >= maxSpaceListPlans {
		clear(spaceListPlans.m)
	}
	spaceListPlans.m[k] = p
	spaceListPlans.mu.Unlock()
	return p
}

// spaceCount is the total of a space list from the class counts
// (migration 0013), sums over at most a few hundred rows however many
// spaces there are: every live space for a reader who sees them all; else
// the spaces of the classes they see plus their granted spaces outside
// those classes, the second part cached until access changes (changes of
// member_space_classes move the access counter). A selection by ids
// (installations) counts the rows (nil).
func spaceCount(f SpaceFilter) []countPart {
	v := f.Visible
	if p, ok := installationCount(f); ok {
		return p
	}
	if p, ok := memberThenInstallationCount(f); ok {
		return p
	}
	if v != nil && (len(v.IDs) > 0 || v.Grantee == nil) || f.AlsoVisible != nil {
		return nil // counted in rows (an intersection has no stored count)
	}
	classes := `SELECT COALESCE(SUM(c.live), 0) FROM space_class_counts c WHERE c.organization_id = ?`
	args := []any{f.OrganizationID}
	if f.ParentID != nil {
		classes += ` AND c.parent_id = ?`
		args = append(args, *f.ParentID)
	}
	if v == nil {
		return []countPart{{Query: classes, Args: args}}
	}
	granted := `SELECT COALESCE(SUM(m.live), 0) FROM member_space_classes m WHERE m.organization_id = ? AND m.user_id = ?`
	gargs := []any{f.OrganizationID, v.Grantee.UserID}
	if f.ParentID != nil {
		granted += ` AND m.parent_id = ?`
		gargs = append(gargs, *f.ParentID)
	}
	return []countPart{
		{Query: classes + ` AND ` + v.cond(classCols("c"), false), Args: args},
		{Query: granted + ` AND NOT COALESCE(` + v.cond(classCols("m"), false) + `, FALSE)`, Args: gargs, ByAccess: true},
	}
}

// insertRevision adds a revision to a space.
func insertRevision(tx *Tx, id, spaceID string, parents []string, typ string, at time.Time) error {
	if parents == nil {
		parents = []string{}
	}
	_, err := tx.exec(`INSERT INTO revisions (id, space_id, parents, type, created_at) VALUES (?, ?, ?, ?, ?)`, id, spaceID, jsonText(parents), typ, ms(at))
	return err
}

// insertSpace inserts s at position pos with sort key key ("" for both:
// placed by the caller afterwards).
func insertSpace(tx *Tx, s *Space, pos, key string) error {
	_, err := tx.exec(`INSERT INTO spaces (id, organization_id, parent_id, title, emoji, icon, visibility, edit_mode, default_level,
 revision_id, position, sort_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.OrganizationID, strOrNil(s.ParentID), s.Title, strOrNil(s.Emoji), strOrNil(s.Icon), s.Visibility, s.EditMode,
		strOrNil(s.DefaultLevel), s.RevisionID, pos, key, ms(s.CreatedAt), ms(s.UpdatedAt))
	return err
}

// CreateSpace inserts s at the end of its parent with an empty first
// revision (s.ID, s.RevisionID and the timestamps are filled in). The row
// is written once, with its final position (endOf); both ids are timed
// (NewTimedID), so their index entries are appended.
func (db *DB) CreateSpace(ctx context.Context, s *Space) error {
	s.ID, s.RevisionID = NewTimedID(), NewTimedID()
	return db.writeOrg(ctx, s.OrganizationID, func(tx *Tx) error { return insertSpaceAtEnd(tx, s) })
}

// insertSpaceAtEnd writes s (ID and RevisionID set) at the end of its
// parent with an empty first revision, stamped tx.Now: every way of
// creating a space (create, site, translation) goes through it.
func insertSpaceAtEnd(tx *Tx, s *Space) error {
	now := FromMillis(ms(tx.Now)) // as stored, so that s reads like the row
	s.CreatedAt, s.UpdatedAt = now, now
	pos, key, err := endOf(tx, s.OrganizationID, s.ParentID)
	if err != nil {
		return err
	}
	s.SortKey = key
	if err := insertSpace(tx, s, pos, key); err != nil {
		return err
	}
	return insertRevision(tx, s.RevisionID, s.ID, nil, "edits", tx.Now)
}

// SpacePatch holds the fields to change; nil leaves a field as it is.
type SpacePatch struct {
	Title        *string
	EditMode     *string
	Visibility   *string
	DefaultLevel **string
	Emoji        **string
	Icon         **string
}

func (db *DB) UpdateSpace(ctx context.Context, id string, p SpacePatch) error {
	return db.writeSpace(ctx, id, func(tx *Tx) error {
		set, args := []string{"updated_at = ?"}, []any{ms(tx.Now)}
		add := func(col string, v any) { set, args = append(set, col+" = ?"), append(args, v) }
		if p.Title != nil {
			add("title", *p.Title)
		}
		if p.EditMode != nil {
			add("edit_mode", *p.EditMode)
		}
		if p.Visibility != nil {
			add("visibility", *p.Visibility)
		}
		if p.DefaultLevel != nil {
			add("default_level", strOrNil(*p.DefaultLevel))
		}
		if p.Emoji != nil {
			add("emoji", strOrNil(*p.Emoji))
		}
		if p.Icon != nil {
			add("icon", strOrNil(*p.Icon))
		}
		if err := updateByID(tx, "spaces", id, set, args); err != nil || (p.Visibility == nil && p.DefaultLevel == nil) {
			return err
		}
		// Its class changed: so did its grantees' granted-space classes.
		return recountGrantees(tx, id)
	})
}

// recountGrantees recounts the spaces of the members granted on the spaces
// (after they entered or left the trash, or got grants).
func recountGrantees(tx *Tx, spaceIDs ...string) error {
	c := newSpaceCounts(tx)
	if err := c.grantees(spaceIDs...); err != nil {
		return err
	}
	return c.done()
}

// SpaceCounters is a change of a space's counters (deltas).
type SpaceCounters struct {
	Comments, ChangeRequests, ChangeRequestsOpen, ChangeRequestsDraft int
}

// adjustSpaceCounters applies d to a space's counters. Families that create
// or change comments and change requests call it in the same transaction as
// the change, so the counters are exact at all times.
func adjustSpaceCounters(tx *Tx, spaceID string, d SpaceCounters) error {
	_, err := tx.exec(`UPDATE spaces SET comments = comments + ?, change_requests = change_requests + ?,
 change_requests_open = change_requests_open + ?, change_requests_draft = change_requests_draft + ? WHERE id = ?`,
		d.Comments, d.ChangeRequests, d.ChangeRequestsOpen, d.ChangeRequestsDraft, spaceID)
	return err
}

// TrashSpace puts a live space in the trash; false when there was no live
// space with that id.
func (db *DB) TrashSpace(ctx context.Context, id string) (bool, error) {
	var n int64
	err := db.writeSpace(ctx, id, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE spaces SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, ms(tx.Now), id)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			tx.unchanged()
			return err
		}
		return recountGrantees(tx, id)
	})
	return n > 0, err
}

// RestoreSpace takes a space out of the trash when it was deleted after
// since; ErrNotFound otherwise. It comes back where it was (its collection
// and rank), or at the top level when its collection was deleted meanwhile.
func (db *DB) RestoreSpace(ctx context.Context, id string, since time.Time) error {
	return db.writeSpace(ctx, id, func(tx *Tx) error {
		var parent sql.NullString
		err := tx.QueryRowContext(tx.ctx, `SELECT parent_id FROM spaces WHERE id = ? AND deleted_at IS NOT NULL AND deleted_at > ?`+notPurging, id, ms(since)).Scan(&parent)
		if err != nil {
			return notFound(err)
		}
		if _, err := tx.exec(`UPDATE spaces SET deleted_at = NULL, updated_at = ? WHERE id = ?`, ms(tx.Now), id); err != nil {
			return err
		}
		if err := recountGrantees(tx, id); err != nil {
			return err
		}
		return refreshItem(tx, ContentRef{KindSpace, id}, nullStr(parent))
	})
}

// spaceRemovalHooks let other families delete rows that point at a space
// (change requests, comments, site links) in the purging transaction.
var spaceRemovalHooks []func(tx *Tx, spaceID string) error

// spaceTransferHooks let other families drop rows that hold a space to its
// organization (integration installations) when it is transferred to
// another one, in the transferring transaction.
var spaceTransferHooks []func(tx *Tx, spaceID string) error

func runSpaceHooks(tx *Tx, hooks []func(tx *Tx, spaceID string) error, ids ...string) error {
	for _, id := range ids {
		for _, hook := range hooks {
			if err := hook(tx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// DuplicateSpace copies a space right after the original: its settings,
// its revisions (with their parent links) and its grants. Comments and
// change requests are not copied, so the copy's counters start at zero.
//
// It shares the original's main line (duplicateShared: the duplicate reads
// the original's rows as they are now and copies a page's rows in when it
// first changes it), so the main line costs nothing to duplicate; its
// revisions' rows, overlays and files and the search index are still
// copied. It reads the same as duplicateWhole, the whole copy
// (TestDuplicateMatchesWholeCopy is that check, on random edit scripts).
func (db *DB) DuplicateSpace(ctx context.Context, id, title string) (string, error) {
	return db.duplicateShared(ctx, id, title)
}

// duplicateWhole is DuplicateSpace by copying every row of the original's
// content: its main line with its history, every overlay, every revision's
// files and the search index (copyRevisionContent).
func (db *DB) duplicateWhole(ctx context.Context, id, title string) (string, error) {
	return db.duplicate(ctx, id, title, false)
}

// duplicateShared is DuplicateSpace sharing the original's main line
// instead of copying it (space_sources.go): the duplicate reads the
// original's rows as they are now, and copies a page's rows in when it
// first changes it.
func (db *DB) duplicateShared(ctx context.Context, id, title string) (string, error) {
	return db.duplicate(ctx, id, title, true)
}

// duplicate is duplicateWhole, or with shareMain duplicateShared.
func (db *DB) duplicate(ctx context.Context, id, title string, shareMain bool) (string, error) {
	newID := NewID()
	err := db.writeSpace(ctx, id, func(tx *Tx) error {
		tx.created(newID)
		src, err := scanSpace(tx.QueryRowContext(tx.ctx, `SELECT `+spaceCols+` FROM spaces s`+spaceGitJoin+` WHERE s.id = ? AND s.deleted_at IS NULL`, id))
		if err != nil {
			return err
		}
		type rev struct {
			id, typ string
			parents []string
			at      int64
		}
		rows, err := tx.QueryContext(tx.ctx, `SELECT id, type, parents, created_at FROM revisions WHERE space_id = ? AND type <> '`+stagedType+`' ORDER BY created_at, id`, id)
		if err != nil {
			return err
		}
		var revs []rev
		for rows.Next() {
			var r rev
			var parents sql.NullString
			if err := rows.Scan(&r.id, &r.typ, &parents, &r.at); err != nil {
				rows.Close()
				return err
			}
			r.parents = fromJSONText[[]string](parents)
			revs = append(revs, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		ids := map[string]string{}
		for _, r := range revs {
			ids[r.id] = NewID()
		}
		dup := src
		dup.ID, dup.Title, dup.CreatedAt, dup.UpdatedAt = newID, title, tx.Now, tx.Now
		dup.RevisionID = ids[src.RevisionID]
		if dup.RevisionID == "" {
			dup.RevisionID = NewID()
			revs = append(revs, rev{id: src.RevisionID, typ: "edits", at: ms(tx.Now)})
			ids[src.RevisionID] = dup.RevisionID
		}
		if err := insertSpace(tx, &dup, "", ""); err != nil {
			return err
		}
		for _, r := range revs {
			parents := make([]string, 0, len(r.parents))
			for _, p := range r.parents {
				if np, ok := ids[p]; ok {
					parents = append(parents, np)
				}
			}
			if err := insertRevision(tx, ids[r.id], newID, parents, r.typ, FromMillis(r.at)); err != nil {
				return err
			}
		}
		if err := copyRevisionContent(tx, id, newID, ids, shareMain); err != nil {
			return err
		}
		if _, err := tx.exec(`INSERT INTO content_grants (organization_id, target_kind, target_id, principal_kind, principal_id, role, created_at)
 SELECT organization_id, target_kind, ?, principal_kind, principal_id, role, ? FROM content_grants WHERE target_kind = 'space' AND target_id = ?`,
			newID, ms(tx.Now), id); err != nil {
			return err
		}
		if err := recountGrantees(tx, newID); err != nil {
			return err
		}
		return place(tx, src.OrganizationID, ContentRef{KindSpace, newID}, src.ParentID, false, Placement{After: &ContentRef{KindSpace, id}})
	})
	return newID, err
}

// MoveSpace places a live space under parent (nil: top level) at. Leaving
// collections for the top level narrows in-collection visibility to private.
func (db *DB) MoveSpace(ctx context.Context, id string, parent *string, at Placement) error {
	return db.writeSpace(ctx, id, func(tx *Tx) error {
		s, err := scanSpace(tx.QueryRowContext(tx.ctx, `SELECT `+spaceCols+` FROM spaces s`+spaceGitJoin+` WHERE s.id = ?`, id))
		if err != nil {
			return err
		}
		if err := place(tx, s.OrganizationID, ContentRef{KindSpace, id}, parent, samePtr(s.ParentID, parent), at); err != nil {
			return err
		}
		q := `UPDATE spaces SET updated_at = ? WHERE id = ?`
		if parent == nil {
			q = `UPDATE spaces SET updated_at = ?, visibility = CASE WHEN visibility = 'in-collection' THEN 'private' ELSE visibility END WHERE id = ?`
		}
		if _, err = tx.exec(q, ms(tx.Now), id); err != nil {
			return err
		}
		// Its class (parent, maybe visibility) changed: recount its grantees'.
		return recountGrantees(tx, id)
	})
}

// TransferSpace moves a space to the top level of organization to (its
// grants are dropped: they name teams and members of the organization it
// leaves).
func (db *DB) TransferSpace(ctx context.Context, id, to string) error {
	return db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`UPDATE spaces SET organization_id = ?, parent_id = NULL, updated_at = ?,
 visibility = CASE WHEN visibility = 'in-collection' THEN 'private' ELSE visibility END WHERE id = ?`, to, ms(tx.Now), id); err != nil {
			return err
		}
		if err := deleteGrantsOn(tx, KindSpace, id); err != nil {
			return err
		}
		if err := runSpaceHooks(tx, spaceTransferHooks, id); err != nil {
			return err
		}
		return place(tx, to, ContentRef{KindSpace, id}, nil, false, Placement{})
	})
}

// Revision is one revision of a space's content.
type Revision struct {
	ID        string
	SpaceID   string
	Parents   []string
	Type      string
	CreatedAt time.Time
	// MergedFrom is the change request a merge revision came from.
	MergedFrom string
	// Read by RevisionByID only (lists leave them nil).
	Variables        map[string]any
	ReusableContents []map[string]any
}

// Revisions lists a space's revisions, oldest first.
func (db *DB) Revisions(ctx context.Context, spaceID string) ([]Revision, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT id, space_id, parents, type, created_at FROM revisions WHERE space_id = ? AND type <> '`+stagedType+`' ORDER BY created_at, id`, spaceID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Revision
	for rows.Next() {
		var r Revision
		var parents sql.NullString
		var at int64
		if err := rows.Scan(&r.ID, &r.SpaceID, &parents, &r.Type, &at); err != nil {
			return nil, err
		}
		r.Parents, r.CreatedAt = fromJSONText[[]string](parents), FromMillis(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
