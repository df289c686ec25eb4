package storage

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Organization is a tenant: every other resource belongs to exactly one.
type Organization struct {
	ID                 string
	Title              string
	CreatedAt          time.Time
	EmailDomains       []string
	Hostname           *string
	Type               string
	UseCase            *string
	CommunityType      *string
	DefaultRole        *string
	DefaultContentSite *string
	Logo               *string
	SSO                bool
	AI                 bool
	InviteLinks        bool
	Plan               string
}

// Membership is a user's place in an organization; Role nil means guest.
type Membership struct {
	Role *string
	SSO  bool
	// OwnsTeam: the user owns at least one team of the organization.
	OwnsTeam bool
}

// ownsTeamSQL tells, per row, whether member m owns a team of its
// organization (computed in the same query as the rows).
const ownsTeamSQL = `EXISTS (SELECT 1 FROM team_members ot WHERE ot.organization_id = m.organization_id AND ot.user_id = m.user_id AND ot.role = 'owner')`

const orgCols = `o.id, o.title, o.created_at, o.email_domains, o.hostname, o.type, o.use_case, o.community_type,
 o.default_role, o.default_content_site, o.logo, o.sso, o.ai, o.invite_links, o.plan`

func scanOrg(sc interface{ Scan(...any) error }, extra ...any) (Organization, error) {
	var o Organization
	var created int64
	var domains sql.NullString
	var hostname, useCase, community, defRole, defSite, logo sql.NullString
	dest := append([]any{&o.ID, &o.Title, &created, &domains, &hostname, &o.Type, &useCase, &community,
		&defRole, &defSite, &logo, &o.SSO, &o.AI, &o.InviteLinks, &o.Plan}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return o, notFound(err)
	}
	o.CreatedAt = FromMillis(created)
	o.EmailDomains = fromJSONText[[]string](domains)
	if o.EmailDomains == nil {
		o.EmailDomains = []string{}
	}
	o.Hostname, o.UseCase, o.CommunityType = nullStr(hostname), nullStr(useCase), nullStr(community)
	o.DefaultRole, o.DefaultContentSite, o.Logo = nullStr(defRole), nullStr(defSite), nullStr(logo)
	return o, nil
}

// orgFor is what OrganizationFor answers; member nil: not a member.
type orgFor struct {
	org    Organization
	member *Membership
}

// orgForVersionedSQL reads an organization, a user's membership in it and
// the change counter: one statement, so one snapshot on both engines, where a read
// transaction (its BEGIN, the counter, the row and its end) took four
// round trips to PostgreSQL. PostgreSQL reads its counter from the
// snapshot (pgCounterStatement).
const orgForVersionedSQL = `SELECT ` + orgCols + `, m.role, m.user_id IS NOT NULL, m.sso, ` + ownsTeamSQL + `, (` + changeCounterSQL + `)
 FROM organizations o LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = ?
 WHERE o.id = ?`

// OrganizationFor reads an organization together with userID's membership
// in it (nil when not a member), in one query. The answer is cached per
// organization and user until the next write (see versioned): between
// writes a call costs one read of the change counter. The organization is
// shared between calls: read it, never change it.
func (db *DB) OrganizationFor(ctx context.Context, orgID, userID string) (Organization, *Membership, error) {
	var e orgFor
	if err := db.prepare(ctx, changeCounterSQL, orgForVersionedSQL); err != nil {
		return e.org, nil, err
	}
	version, err := changeVersion(ctx, db.r())
	if err != nil {
		return e.org, nil, err
	}
	key := orgID + "\x00" + userID
	e, hit := db.orgs.get(key, version)
	if s := snapshotFor(ctx, db.r()); !hit && s != nil && s.org != nil && s.orgKey == key {
		e, hit = *s.org, true // read with the request's counters (ReadCountersFor)
	}
	if !hit {
		// The statement's snapshot may be newer than the counter read
		// above: the row is cached under the counter read with it.
		var role sql.NullString
		var isMember, sso, owns sql.NullBool
		if e.org, err = scanOrg(db.r().QueryRowContext(ctx, orgForVersionedSQL, userID, orgID), &role, &isMember, &sso, &owns, &version); err != nil {
			return e.org, nil, err
		}
		if isMember.Bool {
			e.member = &Membership{Role: nullStr(role), SSO: sso.Bool, OwnsTeam: owns.Bool}
		}
		db.orgs.put(key, version, e)
	}
	if e.member == nil {
		return e.org, nil, nil
	}
	m := *e.member // the caller's own copy
	return e.org, &m, nil
}

// MembershipOf reads userID's membership in orgID; nil when not a member.
func (db *DB) MembershipOf(ctx context.Context, orgID, userID string) (*Membership, error) {
	var role sql.NullString
	var sso bool
	err := db.r().QueryRowContext(ctx, `SELECT role, sso FROM members WHERE organization_id = ? AND user_id = ?`, orgID, userID).Scan(&role, &sso)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &Membership{Role: nullStr(role), SSO: sso}, nil
}

// OrgListItem is an organization with the caller's membership.
type OrgListItem struct {
	Organization
	Membership Membership
}

// ListOrganizationsOfUser pages through the organizations userID belongs to,
// newest membership first.
func (db *DB) ListOrganizationsOfUser(ctx context.Context, userID string, pq PageQuery) (Page[OrgListItem], error) {
	spec := listSpec{
		Select:  orgCols + `, m.role, m.sso, ` + ownsTeamSQL + `, m.joined_at`,
		From:    `FROM members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ?`,
		Args:    []any{userID},
		SortCol: "m.joined_at", IDCol: "o.id", Desc: true,
	}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (OrgListItem, Cursor, error) {
		var it OrgListItem
		var role sql.NullString
		var joined int64
		o, err := scanOrg(rows, &role, &it.Membership.SSO, &it.Membership.OwnsTeam, &joined)
		it.Organization = o
		it.Membership.Role = nullStr(role)
		return it, Cursor{N: joined, ID: o.ID}, err
	})
}

// OrganizationsByEmailDomain lists organizations that claim domain, each
// with userID's membership (nil when not a member).
func (db *DB) OrganizationsByEmailDomain(ctx context.Context, domain, userID string) ([]OrgListItem, []bool, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT `+orgCols+`, m.role, m.sso, m.user_id IS NOT NULL, `+ownsTeamSQL+`
 FROM organization_email_domains d JOIN organizations o ON o.id = d.organization_id
 LEFT JOIN members m ON m.organization_id = o.id AND m.user_id = ?
 WHERE d.domain = ? ORDER BY o.created_at, o.id`, userID, strings.ToLower(domain))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var items []OrgListItem
	var member []bool
	for rows.Next() {
		var it OrgListItem
		var role sql.NullString
		var sso, isMember, owns sql.NullBool
		o, err := scanOrg(rows, &role, &sso, &isMember, &owns)
		if err != nil {
			return nil, nil, err
		}
		it.Organization, it.Membership = o, Membership{Role: nullStr(role), SSO: sso.Bool, OwnsTeam: owns.Bool}
		items = append(items, it)
		member = append(member, isMember.Bool)
	}
	return items, member, rows.Err()
}

// OrganizationPatch holds the fields PATCH may change; nil leaves a field as
// it is, and the Clear flags set a nullable field to NULL.
type OrganizationPatch struct {
	Title                *string
	EmailDomains         *[]string
	Hostname             **string
	DefaultRole          **string
	DefaultContentSite   **string
	Logo                 **string
	SSO, AI, InviteLinks *bool
}

// UpdateOrganization applies p in one transaction and returns the result.
func (db *DB) UpdateOrganization(ctx context.Context, id string, p OrganizationPatch) error {
	return db.Write(ctx, func(tx *Tx) error {
		set := []string{}
		args := []any{}
		add := func(col string, v any) { set = append(set, col+" = ?"); args = append(args, v) }
		if p.Title != nil {
			add("title", *p.Title)
		}
		if p.EmailDomains != nil {
			add("email_domains", jsonText(*p.EmailDomains))
		}
		if p.Hostname != nil {
			add("hostname", strOrNil(*p.Hostname))
		}
		if p.DefaultRole != nil {
			add("default_role", strOrNil(*p.DefaultRole))
		}
		if p.DefaultContentSite != nil {
			add("default_content_site", strOrNil(*p.DefaultContentSite))
		}
		if p.Logo != nil {
			add("logo", strOrNil(*p.Logo))
		}
		if p.SSO != nil {
			add("sso", boolInt(*p.SSO))
		}
		if p.AI != nil {
			add("ai", boolInt(*p.AI))
		}
		if p.InviteLinks != nil {
			add("invite_links", boolInt(*p.InviteLinks))
		}
		if len(set) > 0 {
			res, err := tx.exec(`UPDATE organizations SET `+strings.Join(set, ", ")+` WHERE id = ?`, append(args, id)...)
			if err != nil {
				return uniqueAs(err, ErrHostnameTaken)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return ErrNotFound
			}
		}
		if p.EmailDomains != nil {
			if _, err := tx.exec(`DELETE FROM organization_email_domains WHERE organization_id = ?`, id); err != nil {
				return err
			}
			for _, d := range *p.EmailDomains {
				if _, err := tx.exec(`INSERT INTO organization_email_domains (organization_id, domain) VALUES (?, ?) ON CONFLICT DO NOTHING`, id, strings.ToLower(d)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Bootstrap is the result of creating an organization with its first admin.
type Bootstrap struct {
	User         User
	Organization Organization
	Token        Token
}

// CreateOrganizationWithAdmin creates an organization, makes the user with
// that e-mail (created when new) its admin, and stores a token for the user
// whose hash is tokenHash — all in one transaction.
func (db *DB) CreateOrganizationWithAdmin(ctx context.Context, title, email, name, tokenHash string) (Bootstrap, error) {
	var b Bootstrap
	err := db.Write(ctx, func(tx *Tx) error {
		u, err := userByEmailTx(tx, email)
		if err == ErrNotFound {
			u = User{Email: email, DisplayName: name, SignedIn: true}
			err = insertUser(tx, &u)
		}
		if err != nil {
			return err
		}
		o := Organization{ID: NewID(), Title: title, CreatedAt: tx.Now, EmailDomains: []string{}, Type: "business", InviteLinks: true, Plan: "free_2024"}
		if _, err := tx.exec(`INSERT INTO organizations (id, title, created_at, type, plan) VALUES (?, ?, ?, ?, ?)`, o.ID, o.Title, ms(o.CreatedAt), o.Type, o.Plan); err != nil {
			return err
		}
		admin := "admin"
		if err := insertMember(tx, o.ID, u.ID, &admin, false); err != nil {
			return err
		}
		t := Token{UserID: u.ID, Hash: tokenHash, Kind: "api"}
		if err := insertToken(tx, &t); err != nil {
			return err
		}
		b = Bootstrap{User: u, Organization: o, Token: t}
		return nil
	})
	return b, err
}

// CountUsers tells whether the database is empty (first start).
func (db *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n)
	return n, err
}
