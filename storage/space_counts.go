package storage

import (
	"context"
	"database/sql"
)

// Member space counts: members.space_count is the number of live spaces
// granted to the member, directly or through a team, read by the members
// list with the row. Every write that changes grants on spaces, team
// memberships, or whether a granted space is live recounts the members
// concerned in its own transaction, through spaceCounts or
// refreshMemberCounts, so the stored count is always exact.

// memberCountsSet recounts both stored counts of the members rows it
// updates (team_count and space_count), from the rows they count. CROSS
// JOIN fixes the join order (standard SQL; SQLite keeps the order given):
// from the member's teams to their grants, then to the spaces, all by index.
const memberCountsSet = `team_count = (SELECT COUNT(*) FROM team_members tm
   WHERE tm.organization_id = members.organization_id AND tm.user_id = members.user_id),
 space_count = (SELECT COUNT(*) FROM (
   SELECT g.target_id FROM content_grants g WHERE g.organization_id = members.organization_id
     AND g.principal_kind = 'user' AND g.principal_id = members.user_id AND g.target_kind = 'space'
   UNION
   SELECT g.target_id FROM team_members tm CROSS JOIN content_grants g
   WHERE tm.organization_id = members.organization_id AND tm.user_id = members.user_id
     AND g.organization_id = tm.organization_id AND g.principal_kind = 'team' AND g.principal_id = tm.team_id AND g.target_kind = 'space') x
   CROSS JOIN spaces s WHERE s.id = x.target_id AND s.deleted_at IS NULL)`

// refreshMemberCounts recounts one member's stored counts and granted
// space classes.
func refreshMemberCounts(tx *Tx, orgID, userID string) error {
	if _, err := tx.exec(`UPDATE members SET `+memberCountsSet+` WHERE organization_id = ? AND user_id = ?`, orgID, userID); err != nil {
		return err
	}
	return refreshMemberClasses(tx, orgID, &userID)
}

// memberClassesInsert fills member_space_classes for the members of an
// organization (all of them, or the one named by the last argument): the
// live spaces granted to each, directly or through a team, by class (the
// dimensions of space_class_counts, migration 0013).
const memberClassesInsert = `INSERT INTO member_space_classes (organization_id, user_id, parent_id, visibility, default_level, live)
SELECT x.organization_id, x.user_id, COALESCE(s.parent_id, ''), s.visibility, COALESCE(s.default_level, ''), COUNT(*) FROM (
  SELECT g.organization_id, g.principal_id AS user_id, g.target_id FROM content_grants g
  WHERE g.organization_id = ? AND g.principal_kind = 'user' AND g.target_kind = 'space' AND (CAST(? AS TEXT) IS NULL OR g.principal_id = ?)
  UNION
  SELECT tm.organization_id, tm.user_id, g.target_id FROM team_members tm CROSS JOIN content_grants g
  WHERE tm.organization_id = ? AND (CAST(? AS TEXT) IS NULL OR tm.user_id = ?)
    AND g.organization_id = tm.organization_id AND g.principal_kind = 'team' AND g.principal_id = tm.team_id AND g.target_kind = 'space') x
CROSS JOIN spaces s WHERE s.id = x.target_id AND s.deleted_at IS NULL
GROUP BY x.organization_id, x.user_id, COALESCE(s.parent_id, ''), s.visibility, COALESCE(s.default_level, '')`

// refreshMemberClasses recounts member_space_classes of one member of orgID
// (userID nil: every member).
func refreshMemberClasses(tx *Tx, orgID string, userID *string) error {
	del := `DELETE FROM member_space_classes WHERE organization_id = ?`
	args := []any{orgID}
	if userID != nil {
		del += ` AND user_id = ?`
		args = append(args, *userID)
	}
	if _, err := tx.exec(del, args...); err != nil {
		return err
	}
	u := strOrNil(userID)
	_, err := tx.exec(memberClassesInsert, orgID, u, u, orgID, u, u)
	return err
}

// RecountMembers recounts the stored counts of every member of orgID. Bulk
// loaders that write rows directly (bench/seed) call it; the API's writes
// keep the counts exact as they go.
func (db *DB) RecountMembers(ctx context.Context, orgID string) error {
	return db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`UPDATE members SET `+memberCountsSet+` WHERE organization_id = ?`, orgID); err != nil {
			return err
		}
		return refreshMemberClasses(tx, orgID, nil)
	})
}

func init() {
	memberRemovalHooks = append(memberRemovalHooks, func(tx *Tx, orgID, userID string) error {
		_, err := tx.exec(`DELETE FROM member_space_classes WHERE organization_id = ? AND user_id = ?`, orgID, userID)
		return err
	})
}

// spaceCounts gathers, during one write, the members whose space count the
// write may change, and recounts them at its end (done).
type spaceCounts struct {
	tx  *Tx
	who map[[2]string]bool // organization id, user id
}

func newSpaceCounts(tx *Tx) *spaceCounts { return &spaceCounts{tx: tx, who: map[[2]string]bool{}} }

// grantees adds the members granted a role on the spaces, directly or
// through a team. Call it while the grants exist (before deleting them,
// after creating them).
func (c *spaceCounts) grantees(spaceIDs ...string) error {
	for _, id := range spaceIDs {
		rows, err := c.tx.QueryContext(c.tx.ctx, `SELECT g.organization_id, g.principal_id FROM content_grants g
 WHERE g.target_kind = 'space' AND g.target_id = ? AND g.principal_kind = 'user'
 UNION SELECT tm.organization_id, tm.user_id FROM content_grants g JOIN team_members tm ON tm.team_id = g.principal_id
 WHERE g.target_kind = 'space' AND g.target_id = ? AND g.principal_kind = 'team'`, id, id)
		if err != nil {
			return err
		}
		if err := c.scan(rows); err != nil {
			return err
		}
	}
	return nil
}

// principal adds a grant's principal: the member, or every member of the team.
func (c *spaceCounts) principal(orgID, kind, id string) error {
	if kind == "user" {
		c.who[[2]string{orgID, id}] = true
		return nil
	}
	rows, err := c.tx.QueryContext(c.tx.ctx, `SELECT organization_id, user_id FROM team_members WHERE team_id = ?`, id)
	if err != nil {
		return err
	}
	return c.scan(rows)
}

func (c *spaceCounts) scan(rows *sql.Rows) error {
	defer rows.Close()
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			return err
		}
		c.who[k] = true
	}
	return rows.Err()
}

// done recounts the members gathered.
func (c *spaceCounts) done() error {
	for k := range c.who {
		if err := refreshMemberCounts(c.tx, k[0], k[1]); err != nil {
			return err
		}
	}
	return nil
}
