package storage

import (
	"context"
	"database/sql"
)

// Content grants: a role on a space or a collection given to a team or to a
// member. They are removed with what they point at: the member leaving, the
// team being deleted, the space being purged, the collection being deleted,
// or the content being transferred to another organization.

const grantSelect = `SELECT g.target_kind, g.target_id, g.principal_kind, g.principal_id, g.role, g.created_at FROM content_grants g`

func scanGrant(sc interface{ Scan(...any) error }) (ContentGrant, error) {
	var g ContentGrant
	var created int64
	err := sc.Scan(&g.TargetKind, &g.TargetID, &g.PrincipalKind, &g.PrincipalID, &g.Role, &created)
	g.CreatedAt = FromMillis(created)
	return g, err
}

func scanGrants(rows *sql.Rows, err error) ([]ContentGrant, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ContentGrant
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// SetContentGrant gives (or changes) a principal's role on a target of orgID.
func (db *DB) SetContentGrant(ctx context.Context, orgID string, g ContentGrant) error {
	return db.SetContentGrants(ctx, orgID, []ContentGrant{g})
}

// SetContentGrants gives (or changes) several grants of orgID at once: all
// of them or none (an invitation of users and teams).
func (db *DB) SetContentGrants(ctx context.Context, orgID string, grants []ContentGrant) error {
	return db.Write(ctx, func(tx *Tx) error {
		c := newSpaceCounts(tx)
		for _, g := range grants {
			_, err := tx.exec(`INSERT INTO content_grants (organization_id, target_kind, target_id, principal_kind, principal_id, role, created_at)
 VALUES (?, ?, ?, ?, ?, ?, ?)
 ON CONFLICT (target_kind, target_id, principal_kind, principal_id) DO UPDATE SET role = excluded.role`,
				orgID, g.TargetKind, g.TargetID, g.PrincipalKind, g.PrincipalID, g.Role, ms(tx.Now))
			if err != nil {
				return err
			}
			if g.TargetKind != KindSpace {
				continue
			}
			if err := c.principal(orgID, g.PrincipalKind, g.PrincipalID); err != nil {
				return err
			}
		}
		return c.done()
	})
}

// DeleteContentGrant removes a grant; false when there was none.
func (db *DB) DeleteContentGrant(ctx context.Context, target ContentRef, principalKind, principalID string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		var orgID string
		err := tx.QueryRowContext(tx.ctx, `SELECT organization_id FROM content_grants WHERE target_kind = ? AND target_id = ? AND principal_kind = ? AND principal_id = ?`,
			target.Kind, target.ID, principalKind, principalID).Scan(&orgID)
		if err == sql.ErrNoRows {
			tx.unchanged()
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM content_grants WHERE target_kind = ? AND target_id = ? AND principal_kind = ? AND principal_id = ?`,
			target.Kind, target.ID, principalKind, principalID); err != nil {
			return err
		}
		n = 1
		if target.Kind != KindSpace {
			return nil
		}
		c := newSpaceCounts(tx)
		if err := c.principal(orgID, principalKind, principalID); err != nil {
			return err
		}
		return c.done()
	})
	return n > 0, err
}

// ListContentGrants pages through the grants made on one target, oldest first.
func (db *DB) ListContentGrants(ctx context.Context, target ContentRef, pq PageQuery) (Page[ContentGrant], error) {
	spec := listSpec{
		Select: `g.target_kind, g.target_id, g.principal_kind, g.principal_id, g.role, g.created_at`,
		From:   `FROM content_grants g WHERE g.target_kind = ? AND g.target_id = ?`,
		Args:   []any{target.Kind, target.ID}, SortCol: "g.created_at", IDCol: "g.principal_id",
	}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (ContentGrant, Cursor, error) {
		g, err := scanGrant(rows)
		return g, Cursor{N: g.CreatedAt.UnixMilli(), ID: g.PrincipalID}, err
	})
}

// UserGrant is a grant to a member, with the member's user.
type UserGrant struct {
	Grant ContentGrant
	User  User
}

// TeamGrant is a grant to a team, with the team.
type TeamGrant struct {
	Grant ContentGrant
	Team  Team
}

// ListUserGrants pages through the grants made to members on one target,
// oldest first.
func (db *DB) ListUserGrants(ctx context.Context, target ContentRef, pq PageQuery) (Page[UserGrant], error) {
	spec := listSpec{
		Select: userCols + `, g.target_kind, g.target_id, g.principal_kind, g.principal_id, g.role, g.created_at`,
		From: `FROM content_grants g JOIN users u ON u.id = g.principal_id
 WHERE g.target_kind = ? AND g.target_id = ? AND g.principal_kind = 'user'`,
		Args: []any{target.Kind, target.ID}, SortCol: "g.created_at", IDCol: "g.principal_id",
	}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (UserGrant, Cursor, error) {
		var ug UserGrant
		var created int64
		g := &ug.Grant
		u, err := scanUser(rows, &g.TargetKind, &g.TargetID, &g.PrincipalKind, &g.PrincipalID, &g.Role, &created)
		ug.User, g.CreatedAt = u, FromMillis(created)
		return ug, Cursor{N: created, ID: g.PrincipalID}, err
	})
}

// ListTeamGrants pages through the grants made to teams on one target,
// oldest first.
func (db *DB) ListTeamGrants(ctx context.Context, target ContentRef, pq PageQuery) (Page[TeamGrant], error) {
	spec := listSpec{
		Select: teamSelect() + `, g.target_kind, g.target_id, g.principal_kind, g.principal_id, g.role, g.created_at`,
		From: `FROM content_grants g JOIN teams t ON t.id = g.principal_id
 WHERE g.target_kind = ? AND g.target_id = ? AND g.principal_kind = 'team'`,
		Args: []any{target.Kind, target.ID}, SortCol: "g.created_at", IDCol: "g.principal_id",
	}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (TeamGrant, Cursor, error) {
		var tg TeamGrant
		var created int64
		g := &tg.Grant
		t, err := scanTeam(rows, &g.TargetKind, &g.TargetID, &g.PrincipalKind, &g.PrincipalID, &g.Role, &created)
		tg.Team, g.CreatedAt = t, FromMillis(created)
		return tg, Cursor{N: created, ID: g.PrincipalID}, err
	})
}

// GrantReach is what decides, beside memberships, who can reach one item:
// the organization's collection tree, the grants on the item and on the
// collections above it, and the teams of each member those grants name
// through a team.
type GrantReach struct {
	Tree   CollectionTree // shared: read it, never change it
	Grants []ContentGrant
	// TeamsOf lists, per user, their teams among the granted ones.
	TeamsOf map[string][]string
}

// ContentGrantReach reads the GrantReach of an item of orgID (parent: the
// collection holding it) in one snapshot.
func (db *DB) ContentGrantReach(ctx context.Context, orgID string, item ContentRef, parent *string) (GrantReach, error) {
	var reach GrantReach
	err := db.ReadTx(ctx, func(q queryer) error {
		c, err := readCounters(ctx, q)
		if err != nil {
			return err
		}
		reach = GrantReach{TeamsOf: map[string][]string{}}
		if reach.Tree, err = db.trees.get(ctx, q, orgID, c.access); err != nil {
			return err
		}
		targets := []ContentRef{item}
		for p, depth := parent, 0; p != nil && depth < len(reach.Tree); p, depth = reach.Tree[*p].ParentID, depth+1 {
			targets = append(targets, ContentRef{Kind: KindCollection, ID: *p})
		}
		teams := map[string]bool{}
		for _, t := range targets {
			gs, err := scanGrants(q.QueryContext(ctx, grantSelect+` WHERE g.target_kind = ? AND g.target_id = ? AND g.organization_id = ?`, t.Kind, t.ID, orgID))
			if err != nil {
				return err
			}
			for _, g := range gs {
				if g.PrincipalKind == "team" && !teams[g.PrincipalID] {
					teams[g.PrincipalID] = true
					users, err := queryIDsCtx(ctx, q, `SELECT user_id FROM team_members WHERE team_id = ? ORDER BY user_id`, g.PrincipalID)
					if err != nil {
						return err
					}
					for _, u := range users {
						reach.TeamsOf[u] = append(reach.TeamsOf[u], g.PrincipalID)
					}
				}
			}
			reach.Grants = append(reach.Grants, gs...)
		}
		return nil
	})
	return reach, err
}

// deleteGrantsOn drops the grants on the given targets of one kind (and
// recounts the spaces of the members who lose grants on spaces).
func deleteGrantsOn(tx *Tx, kind string, ids ...string) error {
	c := newSpaceCounts(tx)
	if kind == KindSpace {
		if err := c.grantees(ids...); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if _, err := tx.exec(`DELETE FROM content_grants WHERE target_kind = ? AND target_id = ?`, kind, id); err != nil {
			return err
		}
	}
	return c.done()
}

func init() {
	memberRemovalHooks = append(memberRemovalHooks, func(tx *Tx, orgID, userID string) error {
		_, err := tx.exec(`DELETE FROM content_grants WHERE organization_id = ? AND principal_kind = 'user' AND principal_id = ?`, orgID, userID)
		return err
	})
	teamRemovalHooks = append(teamRemovalHooks, func(tx *Tx, orgID, teamID string) error {
		if _, err := tx.exec(`DELETE FROM content_grants WHERE organization_id = ? AND principal_kind = 'team' AND principal_id = ?`, orgID, teamID); err != nil {
			return err
		}
		// Its members lose what the team was granted (the memberships still
		// exist here, but the team has no grants left).
		c := newSpaceCounts(tx)
		if err := c.principal(orgID, "team", teamID); err != nil {
			return err
		}
		return c.done()
	})
}
