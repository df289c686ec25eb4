package storage

import (
	"context"
	"database/sql"
	"time"
)

// LinkInvite is an invitation link to join an organization (or a space or
// collection of it) with a role.
type LinkInvite struct {
	ID             string
	OrganizationID string
	Role           *string
	TargetKind     string // organization | space | collection
	TargetID       *string
	CreatedBy      string
	CreatedAt      time.Time
}

func (db *DB) CreateLinkInvite(ctx context.Context, inv *LinkInvite) error {
	return db.Write(ctx, func(tx *Tx) error {
		inv.ID, inv.CreatedAt = NewID(), tx.Now
		_, err := tx.exec(`INSERT INTO link_invites (id, organization_id, role, target_kind, target_id, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			inv.ID, inv.OrganizationID, strOrNil(inv.Role), inv.TargetKind, strOrNil(inv.TargetID), inv.CreatedBy, ms(inv.CreatedAt))
		return err
	})
}

func (db *DB) ListLinkInvites(ctx context.Context, orgID string, pq PageQuery) (Page[LinkInvite], error) {
	spec := listSpec{
		Select: `id, organization_id, role, target_kind, target_id, created_by, created_at`,
		From:   `FROM link_invites WHERE organization_id = ? AND target_kind = 'organization'`,
		Args:   []any{orgID}, SortCol: "created_at", IDCol: "id",
	}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (LinkInvite, Cursor, error) {
		var inv LinkInvite
		var role, target sql.NullString
		var created int64
		err := rows.Scan(&inv.ID, &inv.OrganizationID, &role, &inv.TargetKind, &target, &inv.CreatedBy, &created)
		inv.Role, inv.TargetID, inv.CreatedAt = nullStr(role), nullStr(target), FromMillis(created)
		return inv, Cursor{N: created, ID: inv.ID}, err
	})
}

// LinkInviteExists tells whether an organization already has an invite link
// granting role, which makes a new one redundant.
func (db *DB) LinkInviteExists(ctx context.Context, orgID string, role *string, kind string, target *string) (bool, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM link_invites WHERE organization_id = ? AND target_kind = ?
 AND COALESCE(role, '') = COALESCE(?, '') AND COALESCE(target_id, '') = COALESCE(?, '')`,
		orgID, kind, strOrNil(role), strOrNil(target)).Scan(&n)
	return n > 0, err
}

// DeleteLinkInvite reports false when no such invite exists in orgID.
func (db *DB) DeleteLinkInvite(ctx context.Context, orgID, id string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM link_invites WHERE id = ? AND organization_id = ?`, id, orgID)
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

// LinkInvite reads an invite link of orgID.
func (db *DB) LinkInvite(ctx context.Context, orgID, id string) (LinkInvite, error) {
	var inv LinkInvite
	var role, target sql.NullString
	var created int64
	err := db.r().QueryRowContext(ctx, `SELECT id, organization_id, role, target_kind, target_id, created_by, created_at FROM link_invites WHERE id = ? AND organization_id = ?`, id, orgID).
		Scan(&inv.ID, &inv.OrganizationID, &role, &inv.TargetKind, &target, &inv.CreatedBy, &created)
	inv.Role, inv.TargetID, inv.CreatedAt = nullStr(role), nullStr(target), FromMillis(created)
	return inv, notFound(err)
}

// SetLinkInviteRole changes the role an invite link of orgID gives.
func (db *DB) SetLinkInviteRole(ctx context.Context, orgID, id string, role *string) error {
	return db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE link_invites SET role = ? WHERE id = ? AND organization_id = ?`, strOrNil(role), id, orgID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return notFound(sql.ErrNoRows)
		}
		return nil
	})
}

// JoinWithLinkInvite makes userID a member of the invite's organization
// with the invite's role, in one transaction with the invite's reading (a
// link deleted meanwhile is ErrNotFound); false when userID already was a
// member (nothing changes).
func (db *DB) JoinWithLinkInvite(ctx context.Context, orgID, inviteID, userID string) (joined bool, role *string, err error) {
	err = db.Write(ctx, func(tx *Tx) error {
		var r sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT role FROM link_invites WHERE id = ? AND organization_id = ? AND target_kind = 'organization'`, inviteID, orgID).Scan(&r); err != nil {
			return notFound(err)
		}
		role = nullStr(r)
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM members WHERE organization_id = ? AND user_id = ?`, orgID, userID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			tx.unchanged()
			return nil
		}
		joined = true
		return insertMember(tx, orgID, userID, role, false)
	})
	return joined, role, err
}
