package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// ErrAlreadyInstalled: the integration is already installed on that target.
var ErrAlreadyInstalled = ErrExists

// Installation is an integration installed on an organization.
type Installation struct {
	ID              string
	IntegrationID   string
	IntegrationName string
	OrganizationID  string
	Status          string
	SpaceSelection  string
	SiteSelection   string
	Configuration   json.RawMessage
	ExternalIDs     []string
	Spaces          int
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// spaces counts the live spaces the installation covers: with
// space_selection "all" every live space of its organization (the
// installation reaches them all, whether or not they carry a space
// installation of their own), with "selected" the live spaces it is
// installed on. Spaces in the trash count again once restored.
const installationCols = `x.id, x.integration_id, i.name, x.organization_id, x.status, x.space_selection, x.site_selection,
 x.configuration, x.external_ids, x.created_at, x.updated_at,
 CASE WHEN x.space_selection = 'all'
  THEN (SELECT COUNT(*) FROM spaces sp WHERE sp.organization_id = x.organization_id AND sp.deleted_at IS NULL)
  ELSE (SELECT COUNT(*) FROM integration_target_installations s JOIN spaces sp ON sp.id = s.target_id
   WHERE s.installation_id = x.id AND s.kind = 'space' AND sp.deleted_at IS NULL) END`

const installationFrom = `FROM integration_installations x JOIN integrations i ON i.id = x.integration_id`

func scanInstallation(sc interface{ Scan(...any) error }, extra ...any) (Installation, error) {
	var in Installation
	var conf string
	var ext sql.NullString
	var created, updated int64
	dest := append([]any{&in.ID, &in.IntegrationID, &in.IntegrationName, &in.OrganizationID, &in.Status, &in.SpaceSelection, &in.SiteSelection,
		&conf, &ext, &created, &updated, &in.Spaces}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return in, notFound(err)
	}
	in.Configuration = json.RawMessage(conf)
	in.ExternalIDs = fromJSONText[[]string](ext)
	in.CreatedAt, in.UpdatedAt = FromMillis(created), FromMillis(updated)
	return in, nil
}

// Installation reads one installation of an integration.
func (db *DB) Installation(ctx context.Context, integrationID, installationID string) (Installation, error) {
	return scanInstallation(db.r().QueryRowContext(ctx, `SELECT `+installationCols+` `+installationFrom+` WHERE x.integration_id = ? AND x.id = ?`, integrationID, installationID))
}

// InstallationFilter narrows an installation list: AllOrgs, or only the
// installations in Orgs.
type InstallationFilter struct {
	AllOrgs    bool
	Orgs       []string
	ExternalID string
	Search     string // organization installations: substring of the integration's name or title
}

func (f InstallationFilter) where(from string, args []any) (string, []any) {
	if !f.AllOrgs {
		if len(f.Orgs) == 0 {
			return from + ` AND 1 = 0`, args
		}
		from += ` AND x.organization_id IN (` + placeholders(len(f.Orgs)) + `)`
		args = append(args, anySlice(f.Orgs)...)
	}
	return from, args
}

// ListInstallations pages through an integration's organization installations.
func (db *DB) ListInstallations(ctx context.Context, integrationID string, f InstallationFilter, pq PageQuery) (Page[Installation], error) {
	from, args := f.where(installationFrom+` WHERE x.integration_id = ?`, []any{integrationID})
	if f.ExternalID != "" {
		from += ` AND EXISTS (SELECT 1 FROM integration_external_ids e WHERE e.installation_id = x.id AND e.kind = '' AND e.external_id = ?)`
		args = append(args, f.ExternalID)
	}
	spec := listSpec{Select: installationCols, From: from, Args: args, SortCol: "x.created_at", IDCol: "x.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (Installation, Cursor, error) {
		in, err := scanInstallation(rows)
		return in, Cursor{N: in.CreatedAt.UnixMilli(), ID: in.ID}, err
	})
}

// OrgInstallation is an installation with its integration (as seen by UserID).
type OrgInstallation struct {
	Installation Installation
	Integration  Integration
}

// ListOrganizationInstallations pages through the installations of orgID,
// each with its integration, in one query.
func (db *DB) ListOrganizationInstallations(ctx context.Context, orgID, userID, search string, pq PageQuery) (Page[OrgInstallation], error) {
	from := `FROM integration_installations x JOIN integrations i ON i.id = x.integration_id JOIN organizations o ON o.id = i.organization_id
 LEFT JOIN members m ON m.organization_id = i.organization_id AND m.user_id = ? WHERE x.organization_id = ?`
	args := []any{userID, orgID}
	if search != "" {
		pat := "%" + likeEscape(strings.ToLower(search)) + "%"
		from += ` AND (lower(i.name) LIKE ? ESCAPE '\' OR lower(i.title) LIKE ? ESCAPE '\')`
		args = append(args, pat, pat)
	}
	spec := listSpec{Select: integrationSelect + `, ` + installationCols, From: from, Args: args, SortCol: "x.created_at", IDCol: "x.id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (OrgInstallation, Cursor, error) {
		var oi OrgInstallation
		var err error
		// The integration's columns come first; the installation's follow as
		// its extra destinations.
		oi.Installation, err = scanInstallation(scanWith(func(dest ...any) error {
			var err error
			oi.Integration, err = scanIntegration(rows, dest...)
			return err
		}))
		return oi, Cursor{N: oi.Installation.CreatedAt.UnixMilli(), ID: oi.Installation.ID}, err
	})
}

// scanWith adapts a function to the Scan interface of the scan helpers, so
// that two of them can read one row together.
type scanWith func(dest ...any) error

func (f scanWith) Scan(dest ...any) error { return f(dest...) }

// InstallationChange is what installing or updating writes. Events builds
// the events to record in the same transaction from the state before (nil
// when new) and after.
type InstallationChange struct {
	Status         string
	SpaceSelection *string
	SiteSelection  *string
	Configuration  json.RawMessage // nil keeps it
	ExternalIDs    *[]string
	Events         func(prev *Installation, next Installation) []NewEvent
}

// CreateInstallation installs integrationID on orgID; ErrAlreadyInstalled
// when it already is.
func (db *DB) CreateInstallation(ctx context.Context, integrationID, orgID string, c InstallationChange) (Installation, error) {
	var out Installation
	err := db.Write(ctx, func(tx *Tx) error {
		id := NewID()
		tx.created(id)
		conf := c.Configuration
		if conf == nil {
			conf = json.RawMessage(`{}`)
		}
		_, err := tx.exec(`INSERT INTO integration_installations (id, integration_id, organization_id, status, configuration, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?)`, id, integrationID, orgID, c.Status, string(conf), ms(tx.Now), ms(tx.Now))
		if err != nil {
			return uniqueAs(err, ErrAlreadyInstalled)
		}
		if out, err = installationTx(tx, id); err != nil {
			return err
		}
		return insertEvents(tx, c.Events(nil, out))
	})
	return out, err
}

func installationTx(tx *Tx, id string) (Installation, error) {
	return scanInstallation(tx.QueryRowContext(tx.ctx, `SELECT `+installationCols+` `+installationFrom+` WHERE x.id = ?`, id))
}

// UpdateInstallation applies c to an installation of integrationID.
func (db *DB) UpdateInstallation(ctx context.Context, integrationID, installationID string, c InstallationChange) (Installation, error) {
	var out Installation
	err := db.Write(ctx, func(tx *Tx) error {
		prev, err := installationTx(tx, installationID)
		if err != nil {
			return err
		}
		if prev.IntegrationID != integrationID {
			return ErrNotFound
		}
		set, args := `status = ?, updated_at = ?`, []any{c.Status, ms(tx.Now)}
		if c.SpaceSelection != nil {
			set += `, space_selection = ?`
			args = append(args, *c.SpaceSelection)
		}
		if c.SiteSelection != nil {
			set += `, site_selection = ?`
			args = append(args, *c.SiteSelection)
		}
		if c.Configuration != nil {
			set += `, configuration = ?`
			args = append(args, string(c.Configuration))
		}
		if c.ExternalIDs != nil {
			set += `, external_ids = ?`
			args = append(args, jsonText(*c.ExternalIDs))
			if err := setExternalIDs(tx, installationID, "", "", *c.ExternalIDs); err != nil {
				return err
			}
		}
		if _, err := tx.exec(`UPDATE integration_installations SET `+set+` WHERE id = ?`, append(args, installationID)...); err != nil {
			return err
		}
		if out, err = installationTx(tx, installationID); err != nil {
			return err
		}
		return insertEvents(tx, c.Events(&prev, out))
	})
	return out, err
}

func setExternalIDs(tx *Tx, installationID, kind, targetID string, ids []string) error {
	if _, err := tx.exec(`DELETE FROM integration_external_ids WHERE installation_id = ? AND kind = ? AND target_id = ?`, installationID, kind, targetID); err != nil {
		return err
	}
	for _, e := range ids {
		if _, err := tx.exec(`INSERT INTO integration_external_ids (installation_id, kind, target_id, external_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			installationID, kind, targetID, e); err != nil {
			return err
		}
	}
	return nil
}

// DeleteInstallation uninstalls: the installation, its space and site
// installations and its tokens go in one transaction, with the events
// events builds from what is removed. It returns the revoked token ids.
func (db *DB) DeleteInstallation(ctx context.Context, integrationID, installationID string,
	events func(prev Installation, targets []TargetInstallation) []NewEvent) (bool, []string, error) {
	var deleted bool
	var tokens []string
	err := db.Write(ctx, func(tx *Tx) error {
		prev, err := installationTx(tx, installationID)
		if err == ErrNotFound || (err == nil && prev.IntegrationID != integrationID) {
			tx.unchanged()
			return nil
		}
		if err != nil {
			return err
		}
		targets, err := targetsOfInstallation(tx, installationID)
		if err != nil {
			return err
		}
		if tokens, err = revokeInstallationTokens(tx, `SELECT token_id FROM integration_installation_tokens WHERE installation_id = ?`, installationID); err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM integration_installations WHERE id = ?`, installationID); err != nil {
			return err
		}
		deleted = true
		return insertEvents(tx, events(prev, targets))
	})
	return deleted, tokens, err
}

// revokeInstallationTokens deletes the tokens the query selects and returns
// their ids (so the caller can drop them from the authentication cache).
func revokeInstallationTokens(tx *Tx, q string, arg any) ([]string, error) {
	rows, err := tx.QueryContext(tx.ctx, q, arg)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		if _, err := tx.exec(`DELETE FROM tokens WHERE id IN (`+placeholders(len(ids))+`)`, anySlice(ids)...); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// CreateInstallationToken stores an installation token (kind installation,
// scoped to the installation's organization).
func (db *DB) CreateInstallationToken(ctx context.Context, installationID string, t *Token) error {
	return db.Write(ctx, func(tx *Tx) error {
		t.Kind = "installation"
		if err := insertToken(tx, t); err != nil {
			return err
		}
		_, err := tx.exec(`INSERT INTO integration_installation_tokens (token_id, installation_id) VALUES (?, ?)`, t.ID, installationID)
		return err
	})
}

// installationOwnCols is installationCols without the count of covered
// spaces (0): what a token's own requests need, read on every one of them,
// so that they cost the same whatever the organization's or the
// selection's size.
var installationOwnCols = installationCols[:strings.Index(installationCols, "CASE WHEN")] + "0"

// InstallationOfToken reads the installation an installation token acts for
// and its integration's scopes. Its Spaces is left 0 (not counted).
func (db *DB) InstallationOfToken(ctx context.Context, tokenID string) (Installation, []string, error) {
	var scopes sql.NullString
	in, err := scanInstallation(db.r().QueryRowContext(ctx, `SELECT `+installationOwnCols+`, i.scopes `+installationFrom+`
 JOIN integration_installation_tokens t ON t.installation_id = x.id WHERE t.token_id = ?`, tokenID), &scopes)
	return in, fromJSONText[[]string](scopes), err
}
