package storage

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Team is a named group of members of one organization.
type Team struct {
	ID             string
	OrganizationID string
	Title          string
	CreatedAt      time.Time
	Members        int
	Spaces         int
}

// teamSpacesSQL counts the live spaces a team is granted a role on.
// (the organization condition lets it use the grants' principal index).
var teamSpacesSQL = `(SELECT COUNT(*) FROM content_grants g JOIN spaces s ON s.id = g.target_id
 WHERE g.organization_id = t.organization_id AND g.principal_kind = 'team' AND g.principal_id = t.id
 AND g.target_kind = 'space' AND s.deleted_at IS NULL)`

const teamCols = `t.id, t.organization_id, t.title, t.created_at,
 (SELECT COUNT(*) FROM team_members x WHERE x.team_id = t.id)`

func teamSelect() string { return teamCols + `, ` + teamSpacesSQL }

func scanTeam(sc interface{ Scan(...any) error }, extra ...any) (Team, error) {
	var t Team
	var created int64
	if err := sc.Scan(append([]any{&t.ID, &t.OrganizationID, &t.Title, &created, &t.Members, &t.Spaces}, extra...)...); err != nil {
		return t, notFound(err)
	}
	t.CreatedAt = FromMillis(created)
	return t, nil
}

// Team reads a team of orgID; ErrNotFound when it belongs to another.
func (db *DB) Team(ctx context.Context, orgID, teamID string) (Team, error) {
	return scanTeam(db.r().QueryRowContext(ctx, `SELECT `+teamSelect()+` FROM teams t WHERE t.id = ? AND t.organization_id = ?`, teamID, orgID))
}

// TeamFilter narrows the teams list.
type TeamFilter struct {
	Title   string // case-insensitive substring
	OwnerID string // only teams this user owns
}

func (db *DB) ListTeams(ctx context.Context, orgID string, f TeamFilter, pq PageQuery) (Page[Team], error) {
	from := `FROM teams t WHERE t.organization_id = ?`
	args := []any{orgID}
	if f.Title != "" {
		from += ` AND lower(t.title) LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscape(strings.ToLower(f.Title))+"%")
	}
	if f.OwnerID != "" {
		from += ` AND EXISTS (SELECT 1 FROM team_members o WHERE o.team_id = t.id AND o.user_id = ? AND o.role = 'owner')`
		args = append(args, f.OwnerID)
	}
	spec := listSpec{Select: teamSelect(), From: from, Args: args, SortCol: "t.created_at", IDCol: "t.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Team, Cursor, error) {
		t, err := scanTeam(rows)
		return t, Cursor{N: t.CreatedAt.UnixMilli(), ID: t.ID}, err
	})
}

// MemberTeam is a team with one member's role in it.
type MemberTeam struct {
	Team Team
	Role string
}

// ListTeamsOfMember pages through the teams userID belongs to in orgID.
func (db *DB) ListTeamsOfMember(ctx context.Context, orgID, userID, title string, pq PageQuery) (Page[MemberTeam], error) {
	from := `FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE tm.organization_id = ? AND tm.user_id = ?`
	args := []any{orgID, userID}
	if title != "" {
		from += ` AND lower(t.title) LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscape(strings.ToLower(title))+"%")
	}
	spec := listSpec{Select: teamSelect() + `, tm.role`, From: from, Args: args, SortCol: "t.created_at", IDCol: "t.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (MemberTeam, Cursor, error) {
		var mt MemberTeam
		t, err := scanTeam(rows, &mt.Role)
		mt.Team = t
		return mt, Cursor{N: t.CreatedAt.UnixMilli(), ID: t.ID}, err
	})
}

// TeamRole reads userID's role in a team ("" when not in it).
func (db *DB) TeamRole(ctx context.Context, teamID, userID string) (string, error) {
	var role string
	err := db.r().QueryRowContext(ctx, `SELECT role FROM team_members WHERE team_id = ? AND user_id = ?`, teamID, userID).Scan(&role)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return role, err
}

// CreateTeam creates a team with the given members (user ids of members of
// orgID), each with role "member", and returns its id (NewTeam).
func (db *DB) CreateTeam(ctx context.Context, orgID, title string, memberIDs []string) (string, error) {
	t, err := db.NewTeam(ctx, orgID, title, memberIDs)
	return t.ID, err
}

// NewTeam is CreateTeam returning the team as Team reads it, from what the
// write stored (no read back: a new team's member count is its distinct
// members, and no space is granted to it yet).
func (db *DB) NewTeam(ctx context.Context, orgID, title string, memberIDs []string) (Team, error) {
	t := Team{ID: NewID(), OrganizationID: orgID, Title: title}
	write := db.writeOrg
	if len(memberIDs) == 0 {
		// A team without members is a new row nothing counts or orders:
		// it commutes with the organization's other writes (memberships
		// recount members' team counts, an ordered write).
		write = db.writeCommuting
	}
	err := write(ctx, orgID, func(tx *Tx) error {
		tx.created(t.ID)
		t.CreatedAt = FromMillis(ms(tx.Now))
		// A new id: nothing to check in its result (execLater). The
		// organization is read in the statement: NULL, which the column
		// refuses, when it does not exist (PostgreSQL has no foreign key
		// here: migration 0033b).
		if err := tx.execLater(insertTeamSQL, t.ID, orgID, title, ms(tx.Now)); err != nil {
			return err
		}
		added := make(map[string]bool, len(memberIDs))
		for _, uid := range memberIDs {
			if err := upsertTeamMember(tx, t.ID, orgID, uid, "member", false); err != nil {
				return err
			}
			added[uid] = true
		}
		t.Members = len(added)
		return nil
	})
	if err != nil {
		return Team{}, err
	}
	return t, nil
}

// insertTeamSQL inserts a team of an organization that exists.
const insertTeamSQL = `INSERT INTO teams (id, organization_id, title, created_at)
 SELECT ?, (SELECT o.id FROM organizations o WHERE o.id = ?), ?, CAST(? AS BIGINT)`

func (db *DB) RenameTeam(ctx context.Context, orgID, teamID, title string) error {
	return db.writeOrg(ctx, orgID, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE teams SET title = ? WHERE id = ? AND organization_id = ?`, title, teamID, orgID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// DeleteTeam deletes a team and its memberships; false when it did not exist.
func (db *DB) DeleteTeam(ctx context.Context, orgID, teamID string) (bool, error) {
	var n int64
	err := db.writeOrg(ctx, orgID, func(tx *Tx) error {
		for _, hook := range teamRemovalHooks {
			if err := hook(tx, orgID, teamID); err != nil {
				return err
			}
		}
		// The memberships go with the team (cascade): uncount them first.
		if _, err := tx.exec(`UPDATE members SET team_count = team_count - 1
 WHERE organization_id = ? AND user_id IN (SELECT user_id FROM team_members WHERE team_id = ?)`, orgID, teamID); err != nil {
			return err
		}
		res, err := tx.exec(`DELETE FROM teams WHERE id = ? AND organization_id = ?`, teamID, orgID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		if n == 0 {
			tx.unchanged()
		}
		return err
	})
	return n > 0, err
}

// teamRemovalHooks let other families drop rows that point at a team
// (space grants, SAML default team) in the deleting transaction.
var teamRemovalHooks []func(tx *Tx, orgID, teamID string) error

// upsertTeamMember adds or updates a membership. With keepRole an existing
// member keeps the role they have.
func upsertTeamMember(tx *Tx, teamID, orgID, userID, role string, keepRole bool) error {
	q := `INSERT INTO team_members (team_id, organization_id, user_id, role, added_at) VALUES (?, ?, ?, ?, ?)
 ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role`
	if keepRole {
		q = `INSERT INTO team_members (team_id, organization_id, user_id, role, added_at) VALUES (?, ?, ?, ?, ?)
 ON CONFLICT (team_id, user_id) DO NOTHING`
	}
	if _, err := tx.exec(q, teamID, orgID, userID, role, ms(tx.Now)); err != nil {
		return err
	}
	return refreshTeamCount(tx, teamID, userID)
}

// removeTeamMember drops one membership; it reports whether there was one.
func removeTeamMember(tx *Tx, teamID, userID string) (bool, error) {
	res, err := tx.exec(`DELETE FROM team_members WHERE team_id = ? AND user_id = ?`, teamID, userID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return false, err
	}
	return true, refreshTeamCount(tx, teamID, userID)
}

// refreshTeamCount recounts the stored counts of userID in the team's
// organization (members.team_count and space_count, read by the members
// list: a team brings the spaces granted to it). Every change to
// team_members goes through upsertTeamMember or removeTeamMember, which call
// it in the same transaction, so the stored counts are always exact.
func refreshTeamCount(tx *Tx, teamID, userID string) error {
	var orgID string
	err := tx.QueryRowContext(tx.ctx, `SELECT organization_id FROM teams WHERE id = ?`, teamID).Scan(&orgID)
	if err == sql.ErrNoRows {
		return nil // the team is gone: nothing to recount
	}
	if err != nil {
		return err
	}
	return refreshMemberCounts(tx, orgID, userID)
}

// TeamMembersChange is one PUT .../members call, already resolved to user
// ids: add (role member unless Roles says otherwise), set roles, remove.
type TeamMembersChange struct {
	Add    []string
	Roles  map[string]string
	Remove []string
}

// ChangeTeamMembers applies c in one transaction; removals win over adds.
func (db *DB) ChangeTeamMembers(ctx context.Context, orgID, teamID string, c TeamMembersChange) error {
	return db.writeOrg(ctx, orgID, func(tx *Tx) error {
		removed := map[string]bool{}
		for _, uid := range c.Remove {
			removed[uid] = true
		}
		for _, uid := range c.Add {
			if removed[uid] {
				continue
			}
			role, explicit := c.Roles[uid]
			if !explicit {
				role = "member"
			}
			if err := upsertTeamMember(tx, teamID, orgID, uid, role, !explicit); err != nil {
				return err
			}
		}
		for uid, role := range c.Roles {
			if removed[uid] {
				continue
			}
			if err := upsertTeamMember(tx, teamID, orgID, uid, role, false); err != nil {
				return err
			}
		}
		for uid := range removed {
			if _, err := removeTeamMember(tx, teamID, uid); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetTeamMember adds userID to the team with role, or changes their role.
func (db *DB) SetTeamMember(ctx context.Context, orgID, teamID, userID, role string) error {
	return db.writeOrg(ctx, orgID, func(tx *Tx) error { return upsertTeamMember(tx, teamID, orgID, userID, role, false) })
}

// RemoveTeamMember reports false when userID was not in the team.
func (db *DB) RemoveTeamMember(ctx context.Context, teamID, userID string) (bool, error) {
	var removed bool
	err := db.writeOwned(ctx, teamOrgSQL, teamID, func(tx *Tx) error {
		var err error
		removed, err = removeTeamMember(tx, teamID, userID)
		if !removed {
			tx.unchanged()
		}
		return err
	})
	return removed, err
}

// TeamMember is one entry of a team's member list.
type TeamMember struct {
	Member Member
	Role   string
}

func (db *DB) ListTeamMembers(ctx context.Context, orgID, teamID string, pq PageQuery) (Page[TeamMember], error) {
	spec := listSpec{
		Select: memberSelect + `, tm.role, tm.added_at`,
		From: `FROM team_members tm JOIN members m ON m.organization_id = tm.organization_id AND m.user_id = tm.user_id
 JOIN users u ON u.id = m.user_id WHERE tm.team_id = ?`,
		Args: []any{teamID}, SortCol: "tm.added_at", IDCol: "tm.user_id",
	}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (TeamMember, Cursor, error) {
		var tm TeamMember
		var role sql.NullString
		var joined, added int64
		var seen sql.NullInt64
		var m Member
		u, err := scanUser(rows, &role, &m.Disabled, &m.SSO, &joined, &seen, &m.Teams, &m.Spaces, &tm.Role, &added)
		m.OrganizationID, m.User, m.Role, m.JoinedAt, m.LastSeenAt = orgID, u, nullStr(role), FromMillis(joined), nullMillis(seen)
		tm.Member = m
		return tm, Cursor{N: added, ID: u.ID}, err
	})
}

// MemberIDsByRef resolves user ids or e-mails of members of orgID to user
// ids, in one query; refs that match no member are returned in missing.
func (db *DB) MemberIDsByRef(ctx context.Context, orgID string, refs []string) (ids map[string]string, missing []string, err error) {
	ids = map[string]string{}
	if len(refs) == 0 {
		return ids, nil, nil
	}
	lower := make([]string, len(refs))
	for i, ref := range refs {
		lower[i] = strings.ToLower(ref)
	}
	args := append([]any{orgID}, anySlice(refs)...)
	args = append(args, anySlice(lower)...)
	// Variable arity: not a cached prepared statement.
	rows, err := db.read.QueryContext(ctx, `SELECT u.id, u.email FROM members m JOIN users u ON u.id = m.user_id
 WHERE m.organization_id = ? AND (u.id IN (`+placeholders(len(refs))+`) OR u.email IN (`+placeholders(len(refs))+`))`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	byID, byEmail := map[string]string{}, map[string]string{}
	for rows.Next() {
		var id, email string
		if err := rows.Scan(&id, &email); err != nil {
			return nil, nil, err
		}
		byID[id], byEmail[email] = id, id
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	for i, ref := range refs {
		if id, ok := byID[ref]; ok {
			ids[ref] = id
		} else if id, ok := byEmail[lower[i]]; ok {
			ids[ref] = id
		} else {
			missing = append(missing, ref)
		}
	}
	return ids, missing, nil
}

// OwnedTeamIDs is the set of teams of orgID that userID owns (one query, for
// computing permissions of a whole list).
func (db *DB) OwnedTeamIDs(ctx context.Context, orgID, userID string) (map[string]bool, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT team_id FROM team_members WHERE organization_id = ? AND user_id = ? AND role = 'owner'`, orgID, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
