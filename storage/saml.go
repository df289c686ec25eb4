package storage

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
)

// SAMLProvider is an organization's SAML identity provider. EntityID, SSOURL
// and Certificate are "" until configured.
type SAMLProvider struct {
	ID             string
	OrganizationID string
	Label          string
	EntityID       string
	SSOURL         string
	Certificate    string
	DefaultTeam    *Team   // nil when none
	DefaultRole    *string // nil: members it provisions are guests
	CreatedAt      time.Time
}

// Configured tells whether logins can go through the provider: it knows where
// to send requests, who answers, and how to check the answers' signatures.
func (p SAMLProvider) Configured() bool {
	return p.EntityID != "" && p.SSOURL != "" && p.Certificate != ""
}

// samlConfiguredSQL is Configured in SQL, for the login list.
const samlConfiguredSQL = `p.entity_id <> '' AND p.sso_url <> '' AND p.certificate <> ''`

func samlSelect() string {
	return `p.id, p.organization_id, p.label, p.entity_id, p.sso_url, p.certificate, p.default_role, p.created_at, ` + teamSelect()
}

const samlFrom = `FROM saml_providers p LEFT JOIN teams t ON t.id = p.default_team_id`

func scanSAMLProvider(sc interface{ Scan(...any) error }) (SAMLProvider, error) {
	var p SAMLProvider
	var role, teamID, teamOrg, teamTitle sql.NullString
	var created int64
	var teamCreated, teamMembers, teamSpaces sql.NullInt64
	err := sc.Scan(&p.ID, &p.OrganizationID, &p.Label, &p.EntityID, &p.SSOURL, &p.Certificate, &role, &created,
		&teamID, &teamOrg, &teamTitle, &teamCreated, &teamMembers, &teamSpaces)
	if err != nil {
		return p, notFound(err)
	}
	p.DefaultRole, p.CreatedAt = nullStr(role), FromMillis(created)
	if teamID.Valid {
		p.DefaultTeam = &Team{ID: teamID.String, OrganizationID: teamOrg.String, Title: teamTitle.String,
			CreatedAt: FromMillis(teamCreated.Int64), Members: int(teamMembers.Int64), Spaces: int(teamSpaces.Int64)}
	}
	return p, nil
}

// SAMLProvider reads a provider of orgID; ErrNotFound when it belongs to another.
func (db *DB) SAMLProvider(ctx context.Context, orgID, id string) (SAMLProvider, error) {
	return scanSAMLProvider(db.r().QueryRowContext(ctx, `SELECT `+samlSelect()+` `+samlFrom+` WHERE p.id = ? AND p.organization_id = ?`, id, orgID))
}

// SAMLProviderByID reads a provider by id alone, for the login endpoints,
// which know no organization.
func (db *DB) SAMLProviderByID(ctx context.Context, id string) (SAMLProvider, error) {
	return scanSAMLProvider(db.r().QueryRowContext(ctx, `SELECT `+samlSelect()+` `+samlFrom+` WHERE p.id = ?`, id))
}

func (db *DB) ListSAMLProviders(ctx context.Context, orgID string, pq PageQuery) (Page[SAMLProvider], error) {
	spec := listSpec{Select: samlSelect(), From: samlFrom + ` WHERE p.organization_id = ?`, Args: []any{orgID}, SortCol: "p.created_at", IDCol: "p.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (SAMLProvider, Cursor, error) {
		p, err := scanSAMLProvider(rows)
		return p, Cursor{N: p.CreatedAt.UnixMilli(), ID: p.ID}, err
	})
}

// SAMLLogin is what a login page shows of a configured provider.
type SAMLLogin struct {
	ID    string
	Label string
}

// SAMLLogins lists the configured providers of orgID, oldest first;
// ErrNotFound when the organization does not exist. One query: the
// organization's row is joined so that "no providers" and "no such
// organization" are told apart.
func (db *DB) SAMLLogins(ctx context.Context, orgID string) ([]SAMLLogin, error) {
	rows, err := db.r().QueryContext(ctx, `SELECT p.id, p.label FROM organizations o
 LEFT JOIN saml_providers p ON p.organization_id = o.id AND `+samlConfiguredSQL+`
 WHERE o.id = ? ORDER BY p.created_at, p.id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := false
	out := []SAMLLogin{}
	for rows.Next() {
		found = true
		var id, label sql.NullString
		if err := rows.Scan(&id, &label); err != nil {
			return nil, err
		}
		if id.Valid {
			out = append(out, SAMLLogin{ID: id.String, Label: label.String})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotFound
	}
	return out, nil
}

// SAMLProviderFields are the settable fields of a provider; nil leaves a
// field as it is. DefaultTeamID and DefaultRole point at nil to clear them.
type SAMLProviderFields struct {
	Label, EntityID, SSOURL, Certificate *string
	DefaultTeamID                        **string
	DefaultRole                          **string
}

// CreateSAMLProvider stores a provider of orgID with f and returns its id.
func (db *DB) CreateSAMLProvider(ctx context.Context, orgID string, f SAMLProviderFields) (string, error) {
	id := NewID()
	err := db.Write(ctx, func(tx *Tx) error {
		tx.created(id)
		if _, err := tx.exec(`INSERT INTO saml_providers (id, organization_id, label, created_at) VALUES (?, ?, '', ?)`, id, orgID, ms(tx.Now)); err != nil {
			return err
		}
		return updateSAMLProvider(tx, orgID, id, f)
	})
	return id, err
}

// UpdateSAMLProvider changes the fields f sets; ErrNotFound when the provider
// is not one of orgID's.
func (db *DB) UpdateSAMLProvider(ctx context.Context, orgID, id string, f SAMLProviderFields) error {
	return db.Write(ctx, func(tx *Tx) error { return updateSAMLProvider(tx, orgID, id, f) })
}

func updateSAMLProvider(tx *Tx, orgID, id string, f SAMLProviderFields) error {
	var sets []string
	var args []any
	set := func(col string, v any) { sets, args = append(sets, col+" = ?"), append(args, v) }
	for _, c := range []struct {
		col string
		v   *string
	}{{"label", f.Label}, {"entity_id", f.EntityID}, {"sso_url", f.SSOURL}, {"certificate", f.Certificate}} {
		if c.v != nil {
			set(c.col, *c.v)
		}
	}
	if f.DefaultTeamID != nil {
		set("default_team_id", strOrNil(*f.DefaultTeamID))
	}
	if f.DefaultRole != nil {
		set("default_role", strOrNil(*f.DefaultRole))
	}
	// An empty change still answers ErrNotFound for an unknown provider.
	if len(sets) == 0 {
		set("id", id)
	}
	res, err := tx.exec(`UPDATE saml_providers SET `+strings.Join(sets, ", ")+` WHERE id = ? AND organization_id = ?`, append(args, id, orgID)...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteSAMLProvider deletes a provider (and its outstanding requests); false
// when it was not one of orgID's.
func (db *DB) DeleteSAMLProvider(ctx context.Context, orgID, id string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM saml_providers WHERE id = ? AND organization_id = ?`, id, orgID)
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

func init() {
	// A deleted team stops being any provider's default team.
	teamRemovalHooks = append(teamRemovalHooks, func(tx *Tx, orgID, teamID string) error {
		_, err := tx.exec(`UPDATE saml_providers SET default_team_id = NULL WHERE organization_id = ? AND default_team_id = ?`, orgID, teamID)
		return err
	})
}

// ErrTooManySAMLRequests: a provider has as many outstanding requests as it
// may keep (login starts need no token, so their number is bounded).
var ErrTooManySAMLRequests = errors.New("storage: too many outstanding SAML requests")

// AddSAMLRequest records an AuthnRequest sent for providerID, answerable
// until ttl has passed. Expired requests of every provider are dropped first.
func (db *DB) AddSAMLRequest(ctx context.Context, providerID, requestID string, ttl time.Duration, max int) error {
	return db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`DELETE FROM saml_requests WHERE expires_at <= ?`, ms(tx.Now)); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM saml_requests WHERE provider_id = ?`, providerID).Scan(&n); err != nil {
			return err
		}
		if n >= max {
			return ErrTooManySAMLRequests
		}
		_, err := tx.exec(`INSERT INTO saml_requests (id, provider_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			requestID, providerID, ms(tx.Now), ms(tx.Now.Add(ttl)))
		return err
	})
}

// SAMLRequestOutstanding tells whether requestID was sent for providerID and
// is neither answered nor expired.
func (db *DB) SAMLRequestOutstanding(ctx context.Context, providerID, requestID string) (bool, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM saml_requests WHERE id = ? AND provider_id = ? AND expires_at > ?`,
		requestID, providerID, ms(db.Now())).Scan(&n)
	return n > 0, err
}

// ErrSAMLRequestUsed: the request a response answers is not outstanding (a
// replay, or an answer after expiry).
var ErrSAMLRequestUsed = errors.New("storage: the SAML request was already answered or has expired")

// ErrMemberDisabled: the membership exists but is disabled.
var ErrMemberDisabled = errors.New("storage: the membership is disabled")

// SAMLSignIn is one verified SAML login to record.
type SAMLSignIn struct {
	ProviderID     string
	RequestID      string // consumed: a second sign-in with it fails
	OrganizationID string
	Email          string
	DisplayName    string // for a user created by the login
	// Role and TeamID apply when the login makes the user a member.
	Role   *string
	TeamID *string
	// Token is stored for the user (its UserID is filled in).
	Token Token
}

// SAMLSignInResult is the user signed in and whether the login made them a member.
type SAMLSignInResult struct {
	User   User
	Joined bool
}

// SignInWithSAML records a verified login in one transaction: it consumes
// the answered request, finds or creates the user by e-mail, makes them a
// member (with s.Role and s.TeamID) when they are not one, marks the
// membership SSO and seen now, and stores the session token.
func (db *DB) SignInWithSAML(ctx context.Context, s SAMLSignIn) (SAMLSignInResult, error) {
	var out SAMLSignInResult
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`DELETE FROM saml_requests WHERE id = ? AND provider_id = ? AND expires_at > ?`, s.RequestID, s.ProviderID, ms(tx.Now))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrSAMLRequestUsed
		}
		u, err := userByEmailTx(tx, s.Email)
		switch {
		case errors.Is(err, ErrNotFound):
			u = User{Email: s.Email, DisplayName: s.DisplayName, SignedIn: true}
			err = insertUser(tx, &u)
		case err == nil && !u.SignedIn:
			u.SignedIn = true
			_, err = tx.exec(`UPDATE users SET signed_in = 1 WHERE id = ?`, u.ID)
		}
		if err != nil {
			return err
		}
		var disabled bool
		err = tx.QueryRowContext(tx.ctx, `SELECT disabled FROM members WHERE organization_id = ? AND user_id = ?`, s.OrganizationID, u.ID).Scan(&disabled)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if err := insertMember(tx, s.OrganizationID, u.ID, s.Role, true); err != nil {
				return err
			}
			out.Joined = true
			tx.created(u.ID)
			if err := addToExistingTeam(tx, s.OrganizationID, s.TeamID, u.ID); err != nil {
				return err
			}
		case err != nil:
			return err
		case disabled:
			return ErrMemberDisabled
		}
		if _, err := tx.exec(`UPDATE members SET sso = 1, last_seen_at = ? WHERE organization_id = ? AND user_id = ?`, ms(tx.Now), s.OrganizationID, u.ID); err != nil {
			return err
		}
		s.Token.UserID = u.ID
		if err := insertToken(tx, &s.Token); err != nil {
			return err
		}
		out.User = u
		if !out.Joined {
			tx.unchanged() // a member signing in again: nothing for the audit log
		}
		return nil
	})
	return out, err
}

// addToExistingTeam makes userID a member of teamID when the team still
// exists in orgID (it may have been deleted since the login started).
func addToExistingTeam(tx *Tx, orgID string, teamID *string, userID string) error {
	if teamID == nil {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(tx.ctx, `SELECT COUNT(*) FROM teams WHERE id = ? AND organization_id = ?`, *teamID, orgID).Scan(&n); err != nil || n == 0 {
		return err
	}
	return upsertTeamMember(tx, *teamID, orgID, userID, "member", true)
}
