package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// ErrOwnedElsewhere: an integration name is taken by another organization.
var ErrOwnedElsewhere = errors.New("storage: integration owned by another organization")

// Integration is a published integration with its owner organization and
// the caller's membership in that organization (nil when not a member).
type Integration struct {
	ID             string
	Name           string
	OrganizationID string
	Version        int
	Runtime        string
	Title          string
	Description    string
	Summary        string
	Visibility     string
	Target         string
	Scopes         []string
	Categories     []string
	Blocks         json.RawMessage
	ContentSources json.RawMessage
	ExternalLinks  json.RawMessage
	Configurations json.RawMessage
	Script         string
	CSP            json.RawMessage // nil when unset
	IconFile       *string
	PreviewFiles   []string
	SigningSecret  string
	DevTunnelURL   *string
	DevAll         bool
	CreatedAt      time.Time
	UpdatedAt      time.Time

	Owner      Organization
	Membership *Membership
}

const integrationCols = `i.id, i.name, i.organization_id, i.version, i.runtime, i.title, i.description, i.summary,
 i.visibility, i.target, i.scopes, i.categories, i.blocks, i.content_sources, i.external_links, i.configurations,
 i.script, i.csp, i.icon_file, i.preview_files, i.signing_secret, i.dev_tunnel_url, i.dev_all, i.created_at, i.updated_at`

// integrationSelect joins the owner and the caller's membership (first
// argument: the caller's user id).
const integrationSelect = integrationCols + `, ` + orgCols + `, m.role, m.user_id IS NOT NULL`

const integrationFrom = `FROM integrations i JOIN organizations o ON o.id = i.organization_id
 LEFT JOIN members m ON m.organization_id = i.organization_id AND m.user_id = ?`

func scanIntegration(sc interface{ Scan(...any) error }, extra ...any) (Integration, error) {
	var it Integration
	var scopes, cats, previews sql.NullString
	var blocks, sources, links, confs string
	var csp, icon, tunnel sql.NullString
	var created, updated int64
	var role sql.NullString
	var isMember sql.NullBool
	dest := []any{&it.ID, &it.Name, &it.OrganizationID, &it.Version, &it.Runtime, &it.Title, &it.Description, &it.Summary,
		&it.Visibility, &it.Target, &scopes, &cats, &blocks, &sources, &links, &confs,
		&it.Script, &csp, &icon, &previews, &it.SigningSecret, &tunnel, &it.DevAll, &created, &updated}
	// The owner's columns follow the integration's, then role and membership.
	o, err := scanOrg(scanWith(func(orgDest ...any) error {
		return sc.Scan(append(append(append(dest, orgDest...), &role, &isMember), extra...)...)
	}))
	if err != nil {
		return it, err
	}
	it.Owner = o
	if isMember.Bool {
		it.Membership = &Membership{Role: nullStr(role)}
	}
	it.Scopes, it.Categories = fromJSONText[[]string](scopes), fromJSONText[[]string](cats)
	it.PreviewFiles = fromJSONText[[]string](previews)
	it.Blocks, it.ContentSources = json.RawMessage(blocks), json.RawMessage(sources)
	it.ExternalLinks, it.Configurations = json.RawMessage(links), json.RawMessage(confs)
	if csp.Valid {
		it.CSP = json.RawMessage(csp.String)
	}
	it.IconFile, it.DevTunnelURL = nullStr(icon), nullStr(tunnel)
	it.CreatedAt, it.UpdatedAt = FromMillis(created), FromMillis(updated)
	return it, nil
}

// IntegrationByName reads an integration as seen by userID.
func (db *DB) IntegrationByName(ctx context.Context, name, userID string) (Integration, error) {
	return scanIntegration(db.r().QueryRowContext(ctx, `SELECT `+integrationSelect+` `+integrationFrom+` WHERE i.name = ?`, userID, name))
}

// IntegrationFilter narrows the integrations list. Visible restricts rows to
// public integrations and to those owned by VisibleOrgs (organizations the
// caller belongs to); Listed additionally hides unlisted integrations of
// other organizations.
type IntegrationFilter struct {
	UserID         string
	VisibleOrgs    []string
	Search         string // substring of the name, case-insensitive
	Category       string
	BlockDomain    string // host of a block's urlUnfurl, or a parent domain of it
	Blocks         *bool
	ContentSources *bool
	Owner          string
	Scope          string
	Target         string
}

func (db *DB) ListIntegrations(ctx context.Context, f IntegrationFilter, pq PageQuery) (Page[Integration], error) {
	from := integrationFrom + ` WHERE (i.visibility = 'public'`
	args := []any{f.UserID}
	if len(f.VisibleOrgs) > 0 {
		from += ` OR i.organization_id IN (` + placeholders(len(f.VisibleOrgs)) + `)`
		args = append(args, anySlice(f.VisibleOrgs)...)
	}
	from += `)`
	if f.Search != "" {
		from += ` AND lower(i.name) LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscape(strings.ToLower(f.Search))+"%")
	}
	if f.Category != "" {
		from += ` AND EXISTS (SELECT 1 FROM integration_categories c WHERE c.integration_id = i.id AND c.category = ?)`
		args = append(args, f.Category)
	}
	if f.Scope != "" {
		from += ` AND EXISTS (SELECT 1 FROM integration_scopes s WHERE s.integration_id = i.id AND s.scope = ?)`
		args = append(args, f.Scope)
	}
	if f.BlockDomain != "" {
		d := strings.ToLower(f.BlockDomain)
		from += ` AND EXISTS (SELECT 1 FROM integration_block_domains d WHERE d.integration_id = i.id AND (d.domain = ? OR d.domain LIKE ? ESCAPE '\'))`
		args = append(args, d, "%."+likeEscape(d))
	}
	if f.Blocks != nil {
		from += ` AND i.has_blocks = ?`
		args = append(args, boolInt(*f.Blocks))
	}
	if f.ContentSources != nil {
		from += ` AND i.has_sources = ?`
		args = append(args, boolInt(*f.ContentSources))
	}
	if f.Owner != "" {
		from += ` AND (i.organization_id = ? OR o.hostname = ?)`
		args = append(args, f.Owner, strings.ToLower(f.Owner))
	}
	if f.Target != "" {
		from += ` AND i.target = ?`
		args = append(args, f.Target)
	}
	spec := listSpec{Select: integrationSelect, From: from, Args: args, SortCol: "i.name", IDCol: "i.id", Text: true}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Integration, Cursor, error) {
		it, err := scanIntegration(rows)
		return it, Cursor{S: it.Name, ID: it.ID}, err
	})
}

// ImageFile is a decoded, validated image to store.
type ImageFile struct {
	ContentType   string
	Width, Height int
	Data          []byte
}

// IntegrationPublish is one publication: it replaces every field of the
// integration (Secrets nil keeps the stored secrets).
type IntegrationPublish struct {
	Name, OrganizationID                                     string
	Runtime, Title, Description, Summary, Visibility, Target string
	Scopes, Categories                                       []string
	Blocks, ContentSources, ExternalLinks, Configurations    json.RawMessage
	BlockDomains                                             []string
	Script                                                   string
	Secrets                                                  map[string]string
	CSP                                                      json.RawMessage
	Icon                                                     *ImageFile
	PreviewImages                                            []ImageFile
}

// PublishIntegration creates the integration (version 1, with newSecret as
// its signing secret) or replaces it and increments its version.
// ErrOwnedElsewhere when the name belongs to another organization.
func (db *DB) PublishIntegration(ctx context.Context, p IntegrationPublish, newSecret string) error {
	return db.Write(ctx, func(tx *Tx) error {
		var id, owner string
		err := tx.QueryRowContext(ctx, `SELECT id, organization_id FROM integrations WHERE name = ?`, p.Name).Scan(&id, &owner)
		switch {
		case err == sql.ErrNoRows:
			id = NewID()
			if _, err := tx.exec(`INSERT INTO integrations (id, name, organization_id, version, runtime, title, description, script, visibility, target, signing_secret, created_at, updated_at)
 VALUES (?, ?, ?, 0, '', '', '', '', '', '', ?, ?, ?)`, id, p.Name, p.OrganizationID, newSecret, ms(tx.Now), ms(tx.Now)); err != nil {
				return err
			}
		case err != nil:
			return err
		case owner != p.OrganizationID:
			return ErrOwnedElsewhere
		}
		if _, err := tx.exec(`DELETE FROM integration_files WHERE integration_id = ?`, id); err != nil {
			return err
		}
		var icon any
		if p.Icon != nil {
			fid, err := insertImage(tx, id, *p.Icon)
			if err != nil {
				return err
			}
			icon = fid
		}
		previews := []string{}
		for _, img := range p.PreviewImages {
			fid, err := insertImage(tx, id, img)
			if err != nil {
				return err
			}
			previews = append(previews, fid)
		}
		var csp any
		if p.CSP != nil {
			csp = string(p.CSP)
		}
		set := `version = version + 1, runtime = ?, title = ?, description = ?, summary = ?, visibility = ?, target = ?,
 scopes = ?, categories = ?, blocks = ?, content_sources = ?, external_links = ?, configurations = ?, script = ?, csp = ?,
 icon_file = ?, preview_files = ?, has_blocks = ?, has_sources = ?, updated_at = ?`
		args := []any{p.Runtime, p.Title, p.Description, p.Summary, p.Visibility, p.Target,
			jsonText(p.Scopes), jsonText(p.Categories), string(p.Blocks), string(p.ContentSources), string(p.ExternalLinks), string(p.Configurations), p.Script, csp,
			icon, jsonText(previews), boolInt(string(p.Blocks) != "[]"), boolInt(string(p.ContentSources) != "[]"), ms(tx.Now)}
		if p.Secrets != nil {
			set += `, secrets = ?`
			args = append(args, jsonText(p.Secrets))
		}
		if _, err := tx.exec(`UPDATE integrations SET `+set+` WHERE id = ?`, append(args, id)...); err != nil {
			return err
		}
		return replaceSet(tx, id, map[string][]string{
			"integration_scopes.scope": p.Scopes, "integration_categories.category": p.Categories,
			"integration_block_domains.domain": p.BlockDomains,
		})
	})
}

// replaceSet rewrites the side tables that index an integration's lists;
// keys are "table.column".
func replaceSet(tx *Tx, id string, sets map[string][]string) error {
	for key, values := range sets {
		table, col, _ := strings.Cut(key, ".")
		if _, err := tx.exec(`DELETE FROM `+table+` WHERE integration_id = ?`, id); err != nil {
			return err
		}
		for _, v := range values {
			if _, err := tx.exec(`INSERT INTO `+table+` (integration_id, `+col+`) VALUES (?, ?) ON CONFLICT DO NOTHING`, id, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func insertImage(tx *Tx, integrationID string, f ImageFile) (string, error) {
	id := NewID()
	_, err := tx.exec(`INSERT INTO integration_files (id, integration_id, content_type, width, height, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, integrationID, f.ContentType, f.Width, f.Height, f.Data, ms(tx.Now))
	return id, err
}

// IntegrationImage reads a stored icon or preview image of an integration.
func (db *DB) IntegrationImage(ctx context.Context, name, id string) (ImageFile, error) {
	var f ImageFile
	err := db.r().QueryRowContext(ctx, `SELECT f.content_type, f.width, f.height, f.data FROM integration_files f
 JOIN integrations i ON i.id = f.integration_id WHERE i.name = ? AND f.id = ?`, name, id).
		Scan(&f.ContentType, &f.Width, &f.Height, &f.Data)
	return f, notFound(err)
}

// UnpublishIntegration deletes an integration with everything that hangs on
// it: installations (organization, space, site), their tokens, events,
// pending deliveries and images. It returns the ids of the revoked tokens.
func (db *DB) UnpublishIntegration(ctx context.Context, integrationID string) (bool, []string, error) {
	var n int64
	var tokens []string
	err := db.Write(ctx, func(tx *Tx) error {
		var err error
		tokens, err = revokeInstallationTokens(tx, `SELECT t.token_id FROM integration_installation_tokens t
 JOIN integration_installations x ON x.id = t.installation_id WHERE x.integration_id = ?`, integrationID)
		if err != nil {
			return err
		}
		res, err := tx.exec(`DELETE FROM integrations WHERE id = ?`, integrationID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, tokens, err
}

// SetDevelopmentMode turns development mode on (tunnel set) or off (nil).
func (db *DB) SetDevelopmentMode(ctx context.Context, integrationID string, tunnelURL *string, all bool) error {
	return db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE integrations SET dev_tunnel_url = ?, dev_all = ? WHERE id = ?`, strOrNil(tunnelURL), boolInt(all), integrationID)
		return err
	})
}

// RotateSigningSecret replaces the HMAC key of an integration's deliveries.
func (db *DB) RotateSigningSecret(ctx context.Context, integrationID, secret string) error {
	return db.Write(ctx, func(tx *Tx) error {
		_, err := tx.exec(`UPDATE integrations SET signing_secret = ? WHERE id = ?`, secret, integrationID)
		return err
	})
}

// AdminOrganizations lists the organizations where userID is an admin (one
// query; used to scope installation lists).
func (db *DB) AdminOrganizations(ctx context.Context, userID string) ([]string, error) {
	return queryIDsCtx(ctx, db.r(), `SELECT organization_id FROM members WHERE user_id = ? AND role = 'admin'`, userID)
}

// MemberOrganizations lists the organizations userID belongs to.
func (db *DB) MemberOrganizations(ctx context.Context, userID string) ([]string, error) {
	return queryIDsCtx(ctx, db.r(), `SELECT organization_id FROM members WHERE user_id = ?`, userID)
}

// OrganizationByRef resolves an organization id or hostname (subdomain).
func (db *DB) OrganizationByRef(ctx context.Context, ref string) (string, error) {
	var id string
	err := db.r().QueryRowContext(ctx, `SELECT id FROM organizations WHERE id = ? OR hostname = ?`, ref, strings.ToLower(ref)).Scan(&id)
	return id, notFound(err)
}
