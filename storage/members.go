package storage

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// Member is a user's membership in an organization, with the user and the
// counts the API shows.
type Member struct {
	OrganizationID string
	User           User
	Role           *string // nil: guest
	Disabled       bool
	SSO            bool
	JoinedAt       time.Time
	LastSeenAt     *time.Time
	Spaces         int
	Teams          int
}

var (
	ErrLastAdmin           = errors.New("storage: the organization must keep at least one admin")
	ErrHostnameTaken error = conflict("hostname already in use")
	ErrExists        error = conflict("already exists")
)

// The member counts come with the row (no query per row): both are stored
// on the membership and kept exact by the writes that change them (the team
// count by teams.go, the spaces count, the live spaces granted to the
// member directly or through a team, by space_counts.go).
const memberSelect = userCols + `, m.role, m.disabled, m.sso, m.joined_at, m.last_seen_at, m.team_count, m.space_count`

func scanMember(sc interface{ Scan(...any) error }, orgID string) (Member, error) {
	var m Member
	var role sql.NullString
	var joined int64
	var seen sql.NullInt64
	u, err := scanUser(sc, &role, &m.Disabled, &m.SSO, &joined, &seen, &m.Teams, &m.Spaces)
	if err != nil {
		return m, err
	}
	m.OrganizationID, m.User, m.Role, m.JoinedAt, m.LastSeenAt = orgID, u, nullStr(role), FromMillis(joined), nullMillis(seen)
	return m, nil
}

func (db *DB) Member(ctx context.Context, orgID, userID string) (Member, error) {
	return scanMember(db.r().QueryRowContext(ctx, `SELECT `+memberSelect+`
 FROM members m JOIN users u ON u.id = m.user_id WHERE m.organization_id = ? AND m.user_id = ?`, orgID, userID), orgID)
}

// MemberFilter narrows and orders the members list.
type MemberFilter struct {
	Role       *string // a role, or "guest"
	WithRole   bool    // only members with an organization role (no guests)
	Search     string  // substring of display name or e-mail, case-insensitive
	SortBySeen bool    // sort by lastSeenAt (only members seen at least once) instead of joinedAt
	Asc        bool
	// CommentedIn: only members who posted a comment or reply there.
	CommentedIn *CommentScope
	// Keep, when set, keeps only the members it accepts (decided in Go from
	// state loaded once, such as who can reach some content); the count is
	// then of the kept members.
	Keep func(Member) bool
}

func (db *DB) ListMembers(ctx context.Context, orgID string, f MemberFilter, pq PageQuery) (Page[Member], error) {
	// where holds the conditions on members alone; the users join is only
	// needed for the text search (every member has a user: NOT NULL foreign
	// key), so without one the total is counted on the members index only.
	where := ` WHERE m.organization_id = ?`
	args := []any{orgID}
	if f.Role != nil {
		if *f.Role == "guest" {
			where += ` AND m.role IS NULL`
		} else {
			where += ` AND m.role = ?`
			args = append(args, *f.Role)
		}
	}
	if f.WithRole {
		where += ` AND m.role IS NOT NULL`
	}
	if f.CommentedIn != nil {
		where += ` AND m.user_id IN (` + commentersSQL + `)`
		args = append(args, f.CommentedIn.SpaceID, f.CommentedIn.ChangeRequestID)
	}
	sortCol := "m.joined_at"
	if f.SortBySeen {
		sortCol = "m.last_seen_at"
		where += ` AND m.last_seen_at IS NOT NULL`
	}
	spec := listSpec{Select: memberSelect, SortCol: sortCol, IDCol: "m.user_id", Desc: !f.Asc,
		Cache: true} // the members and commenters lists read the items only
	if f.Search != "" {
		where += ` AND (lower(u.display_name) LIKE ? ESCAPE '\' OR u.email LIKE ? ESCAPE '\')`
		pat := "%" + likeEscape(strings.ToLower(f.Search)) + "%"
		args = append(args, pat, pat)
	} else {
		spec.CountFrom, spec.CountArgs = `FROM members m`+where, args
	}
	spec.From, spec.Args = `FROM members m JOIN users u ON u.id = m.user_id`+where, args
	return runFilteredList(ctx, db, spec, pq, func(rows *sql.Rows) (Member, Cursor, error) {
		m, err := scanMember(rows, orgID)
		key := m.JoinedAt.UnixMilli()
		if f.SortBySeen && m.LastSeenAt != nil {
			key = m.LastSeenAt.UnixMilli()
		}
		return m, Cursor{N: key, ID: m.User.ID}, err
	}, f.Keep)
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func insertMember(tx *Tx, orgID, userID string, role *string, sso bool) error {
	_, err := tx.exec(`INSERT INTO members (organization_id, user_id, role, sso, joined_at) VALUES (?, ?, ?, ?, ?)`,
		orgID, userID, strOrNil(role), boolInt(sso), ms(tx.Now))
	return err
}

// AddMember makes an existing user a member; ErrExists when already one.
func (db *DB) AddMember(ctx context.Context, orgID, userID string, role *string) error {
	return db.writeOrg(ctx, orgID, func(tx *Tx) error {
		if err := insertMember(tx, orgID, userID, role, false); err != nil {
			return uniqueAs(err, ErrExists)
		}
		return nil
	})
}

// CreateUserWithToken creates a user (optionally a member of orgID with
// role) and a token for them, in one transaction.
func (db *DB) CreateUserWithToken(ctx context.Context, email, name, orgID string, role *string, withOrg bool, tokenHash string) (User, Token, error) {
	var u User
	var t Token
	err := db.Write(ctx, func(tx *Tx) error {
		u = User{Email: email, DisplayName: name, SignedIn: true}
		if err := insertUser(tx, &u); err != nil {
			return uniqueAs(err, ErrExists)
		}
		if withOrg {
			if err := insertMember(tx, orgID, u.ID, role, false); err != nil {
				return err
			}
		}
		t = Token{UserID: u.ID, Hash: tokenHash, Kind: "api"}
		return insertToken(tx, &t)
	})
	return u, t, err
}

// adminGuard refuses a change that would leave orgID without an admin.
func adminGuard(tx *Tx, orgID, userID string) error {
	var others int
	if err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM members WHERE organization_id = ? AND role = 'admin' AND user_id <> ?`, orgID, userID).Scan(&others); err != nil {
		return err
	}
	if others == 0 {
		return ErrLastAdmin
	}
	return nil
}

// UpdateMemberRole sets a member's role (nil: guest). Demoting the last
// admin is refused with ErrLastAdmin.
func (db *DB) UpdateMemberRole(ctx context.Context, orgID, userID string, role *string) error {
	return db.writeOrg(ctx, orgID, func(tx *Tx) error {
		var cur sql.NullString
		if err := tx.QueryRowContext(tx.ctx, `SELECT role FROM members WHERE organization_id = ? AND user_id = ?`, orgID, userID).Scan(&cur); err != nil {
			return notFound(err)
		}
		if cur.String == "admin" && (role == nil || *role != "admin") {
			if err := adminGuard(tx, orgID, userID); err != nil {
				return err
			}
		}
		_, err := tx.exec(`UPDATE members SET role = ? WHERE organization_id = ? AND user_id = ?`, strOrNil(role), orgID, userID)
		return err
	})
}

// RemoveMember removes a member (and, by cascade, their team memberships).
// It reports false when userID was not a member; removing the last admin is
// refused with ErrLastAdmin.
func (db *DB) RemoveMember(ctx context.Context, orgID, userID string) (bool, error) {
	removed := false
	err := db.writeOrg(ctx, orgID, func(tx *Tx) error {
		var cur sql.NullString
		err := tx.QueryRowContext(tx.ctx, `SELECT role FROM members WHERE organization_id = ? AND user_id = ?`, orgID, userID).Scan(&cur)
		if err == sql.ErrNoRows {
			tx.unchanged()
			return nil
		}
		if err != nil {
			return err
		}
		if cur.String == "admin" {
			if err := adminGuard(tx, orgID, userID); err != nil {
				return err
			}
		}
		for _, hook := range memberRemovalHooks {
			if err := hook(tx, orgID, userID); err != nil {
				return err
			}
		}
		if _, err := tx.exec(`DELETE FROM members WHERE organization_id = ? AND user_id = ?`, orgID, userID); err != nil {
			return err
		}
		removed = true
		return nil
	})
	return removed, err
}

// memberRemovalHooks let other resource families clean up rows that point at
// a member (space grants, ...) in the same transaction as the removal.
var memberRemovalHooks []func(tx *Tx, orgID, userID string) error

// SetMemberSSO marks userID as an SSO member of orgID, adding them first
// (with the organization's defaultRole) when they are not a member yet: the
// specification's "the user is added as an SSO member". Only an unknown user
// is ErrNotFound.
func (db *DB) SetMemberSSO(ctx context.Context, orgID, userID string) error {
	return db.writeOrg(ctx, orgID, func(tx *Tx) error {
		res, err := tx.exec(`INSERT INTO members (organization_id, user_id, role, sso, joined_at)
			SELECT o.id, u.id, o.default_role, 1, ? FROM organizations o, users u WHERE o.id = ? AND u.id = ?
			ON CONFLICT (organization_id, user_id) DO UPDATE SET sso = 1`, ms(tx.Now), orgID, userID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// TouchMember sets a member's lastSeenAt to now.
func (db *DB) TouchMember(ctx context.Context, orgID, userID string) error {
	return db.writeOrg(ctx, orgID, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE members SET last_seen_at = ? WHERE organization_id = ? AND user_id = ?`, ms(tx.Now), orgID, userID)
		return err
	})
}

// Invitee is one e-mail of an invitation with the role it grants.
type Invitee struct {
	Email string
	Role  *string
	// AddedAs is set by InviteByEmail, inside its transaction (so a
	// recorded change can name them), to the user id of an invitee who
	// joined; empty for one who already was a member.
	AddedAs string
}

// InviteByEmail adds each invitee to orgID: existing users join at once,
// unknown e-mails become users who have not signed in yet. Users who are
// already members keep their membership. It returns the ids of the users
// added, in invitation order.
func (db *DB) InviteByEmail(ctx context.Context, orgID string, invitees []Invitee, sso bool) ([]string, error) {
	var added []string
	err := db.Write(ctx, func(tx *Tx) error {
		for i, in := range invitees {
			u, err := userByEmailTx(tx, in.Email)
			if err == ErrNotFound {
				name := in.Email
				if i := strings.IndexByte(name, '@'); i > 0 {
					name = name[:i]
				}
				u = User{Email: in.Email, DisplayName: name}
				err = insertUser(tx, &u)
			}
			if err != nil {
				return err
			}
			res, err := tx.exec(`INSERT INTO members (organization_id, user_id, role, sso, joined_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				orgID, u.ID, strOrNil(in.Role), boolInt(sso), ms(tx.Now))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				added = append(added, u.ID)
				invitees[i].AddedAs = u.ID
			}
		}
		return nil
	})
	return added, err
}

// uniqueAs maps a unique-constraint violation to the given domain error.
func uniqueAs(err error, as error) error {
	if err == nil {
		return nil
	}
	if (sqliteDialect{}).unique(err) || (postgresDialect{}).unique(err) {
		return as
	}
	return err
}
