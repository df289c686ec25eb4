package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// TargetInstallation is an installation on one space or site, under an
// organization installation.
type TargetInstallation struct {
	InstallationID  string
	IntegrationID   string
	IntegrationName string
	OrganizationID  string
	Kind            string // space | site
	TargetID        string
	Status          string
	Configuration   json.RawMessage
	ExternalIDs     []string
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

const targetCols = `s.installation_id, s.integration_id, i.name, x.organization_id, s.kind, s.target_id, s.status,
 s.configuration, s.external_ids, s.created_at, s.updated_at`

const targetFrom = `FROM integration_target_installations s JOIN integration_installations x ON x.id = s.installation_id
 JOIN integrations i ON i.id = s.integration_id`

func scanTarget(sc interface{ Scan(...any) error }) (TargetInstallation, error) {
	var t TargetInstallation
	var conf string
	var ext sql.NullString
	var created, updated int64
	if err := sc.Scan(&t.InstallationID, &t.IntegrationID, &t.IntegrationName, &t.OrganizationID, &t.Kind, &t.TargetID, &t.Status,
		&conf, &ext, &created, &updated); err != nil {
		return t, notFound(err)
	}
	t.Configuration = json.RawMessage(conf)
	t.ExternalIDs = fromJSONText[[]string](ext)
	t.CreatedAt, t.UpdatedAt = FromMillis(created), FromMillis(updated)
	return t, nil
}

// TargetInstallation reads the installation of installationID on one space
// or site.
func (db *DB) TargetInstallation(ctx context.Context, installationID, kind, targetID string) (TargetInstallation, error) {
	return scanTarget(db.r().QueryRowContext(ctx, `SELECT `+targetCols+` `+targetFrom+`
 WHERE s.installation_id = ? AND s.kind = ? AND s.target_id = ?`, installationID, kind, targetID))
}

func targetTx(tx *Tx, installationID, kind, targetID string) (TargetInstallation, error) {
	return scanTarget(tx.QueryRowContext(tx.ctx, `SELECT `+targetCols+` `+targetFrom+`
 WHERE s.installation_id = ? AND s.kind = ? AND s.target_id = ?`, installationID, kind, targetID))
}

func targetsOfInstallation(tx *Tx, installationID string) ([]TargetInstallation, error) {
	rows, err := tx.QueryContext(tx.ctx, `SELECT `+targetCols+` `+targetFrom+` WHERE s.installation_id = ? ORDER BY s.created_at, s.target_id`, installationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TargetInstallation
	for rows.Next() {
		t, err := scanTarget(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TargetFilter narrows a list of space or site installations: those of one
// installation, or of an integration in the given organizations.
type TargetFilter struct {
	Kind           string
	InstallationID string // when set, only this installation's
	Installations  InstallationFilter
}

// ListTargetInstallations pages through space or site installations of an
// integration.
func (db *DB) ListTargetInstallations(ctx context.Context, integrationID string, f TargetFilter, pq PageQuery) (Page[TargetInstallation], error) {
	from, args := f.Installations.where(targetFrom+` WHERE s.integration_id = ? AND s.kind = ?`, []any{integrationID, f.Kind})
	if f.InstallationID != "" {
		from += ` AND s.installation_id = ?`
		args = append(args, f.InstallationID)
	}
	if f.Kind == "space" {
		// Installations on a space in the trash rest until it is restored
		// (or purged with it).
		from += ` AND NOT EXISTS (SELECT 1 FROM spaces sp WHERE sp.id = s.target_id AND sp.deleted_at IS NOT NULL)`
	}
	if f.Installations.ExternalID != "" {
		from += ` AND EXISTS (SELECT 1 FROM integration_external_ids e WHERE e.installation_id = s.installation_id
 AND e.kind = s.kind AND e.target_id = s.target_id AND e.external_id = ?)`
		args = append(args, f.Installations.ExternalID)
	}
	spec := listSpec{Select: targetCols, From: from, Args: args, SortCol: "s.created_at", IDCol: "s.target_id"}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (TargetInstallation, Cursor, error) {
		t, err := scanTarget(rows)
		return t, Cursor{N: t.CreatedAt.UnixMilli(), ID: t.TargetID}, err
	})
}

// TargetChange is what installing on or updating a space or site writes.
type TargetChange struct {
	Status        string
	Configuration json.RawMessage // nil keeps it
	ExternalIDs   *[]string
	Events        func(prev *TargetInstallation, next TargetInstallation) []NewEvent
}

// CreateTargetInstallation installs on a space or site; ErrAlreadyInstalled
// when the integration is already installed there.
func (db *DB) CreateTargetInstallation(ctx context.Context, in Installation, kind, targetID string, c TargetChange) (TargetInstallation, error) {
	var out TargetInstallation
	err := db.Write(ctx, func(tx *Tx) error {
		conf := c.Configuration
		if conf == nil {
			conf = json.RawMessage(`{}`)
		}
		_, err := tx.exec(`INSERT INTO integration_target_installations (installation_id, integration_id, kind, target_id, status, configuration, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, in.ID, in.IntegrationID, kind, targetID, c.Status, string(conf), ms(tx.Now), ms(tx.Now))
		if err != nil {
			return uniqueAs(err, ErrAlreadyInstalled)
		}
		if out, err = targetTx(tx, in.ID, kind, targetID); err != nil {
			return err
		}
		return insertEvents(tx, c.Events(nil, out))
	})
	return out, err
}

// UpdateTargetInstallation applies c to a space or site installation.
func (db *DB) UpdateTargetInstallation(ctx context.Context, installationID, kind, targetID string, c TargetChange) (TargetInstallation, error) {
	var out TargetInstallation
	err := db.Write(ctx, func(tx *Tx) error {
		prev, err := targetTx(tx, installationID, kind, targetID)
		if err != nil {
			return err
		}
		set, args := `status = ?, updated_at = ?`, []any{c.Status, ms(tx.Now)}
		if c.Configuration != nil {
			set += `, configuration = ?`
			args = append(args, string(c.Configuration))
		}
		if c.ExternalIDs != nil {
			set += `, external_ids = ?`
			args = append(args, jsonText(*c.ExternalIDs))
			if err := setExternalIDs(tx, installationID, kind, targetID, *c.ExternalIDs); err != nil {
				return err
			}
		}
		if _, err := tx.exec(`UPDATE integration_target_installations SET `+set+` WHERE installation_id = ? AND kind = ? AND target_id = ?`,
			append(args, installationID, kind, targetID)...); err != nil {
			return err
		}
		if out, err = targetTx(tx, installationID, kind, targetID); err != nil {
			return err
		}
		return insertEvents(tx, c.Events(&prev, out))
	})
	return out, err
}

// DeleteTargetInstallation uninstalls from a space or site; false when it
// was not installed there.
func (db *DB) DeleteTargetInstallation(ctx context.Context, installationID, kind, targetID string, events func(prev TargetInstallation) []NewEvent) (bool, error) {
	var deleted bool
	err := db.Write(ctx, func(tx *Tx) error {
		prev, err := targetTx(tx, installationID, kind, targetID)
		if err == ErrNotFound {
			tx.unchanged()
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM integration_external_ids WHERE installation_id = ? AND kind = ? AND target_id = ?`, installationID, kind, targetID); err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM integration_target_installations WHERE installation_id = ? AND kind = ? AND target_id = ?`, installationID, kind, targetID); err != nil {
			return err
		}
		deleted = true
		return insertEvents(tx, events(prev))
	})
	return deleted, err
}

// MaxTargetLookup bounds the ids one InstallationTargetsAmong asks about
// (callers pass a page's or one request's spaces).
const MaxTargetLookup = 1000

// InstallationTargetsAmong tells which of ids the installation is installed
// on (kind "space" or "site"): primary-key reads of
// integration_target_installations, one statement, never the installation's
// whole selection. ids past MaxTargetLookup are refused.
func (db *DB) InstallationTargetsAmong(ctx context.Context, installationID, kind string, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if len(ids) > MaxTargetLookup {
		return nil, fmt.Errorf("storage: %d ids asked about at once (at most %d)", len(ids), MaxTargetLookup)
	}
	q := `SELECT target_id FROM integration_target_installations WHERE installation_id = ? AND kind = ? AND target_id`
	args := []any{installationID, kind}
	if len(ids) == 1 {
		q += ` = ?`
		args = append(args, ids[0])
	} else {
		q += ` IN (?` + strings.Repeat(`, ?`, len(ids)-1) + `)`
		for _, id := range ids {
			args = append(args, id)
		}
	}
	found, err := queryIDsCtx(ctx, db.r(), q, args...)
	if err != nil {
		return nil, err
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// TargetRemovedEvent builds the event recorded when an installation on a
// space or site goes with its target (a space purged or transferred to
// another organization, a site deleted). The resolvers set it
// (OnTargetRemoved): the event's payload and forwarding are theirs to decide.
type TargetRemovedEvent func(it Integration, removed TargetInstallation) NewEvent

// OnTargetRemoved sets the builder of the events recorded when space or
// site installations go with their target; without one they go silently.
func (db *DB) OnTargetRemoved(fn TargetRemovedEvent) { db.targetRemoved.Store(&fn) }

func init() {
	// A space purged from the trash or transferred to another organization
	// takes its space installations with it: they belong to installations of
	// the organization it was in. A deleted site takes its site installations.
	removeSpace := func(tx *Tx, spaceID string) error { return removeTargetInstallations(tx, "space", spaceID) }
	spaceRemovalHooks = append(spaceRemovalHooks, removeSpace)
	spaceTransferHooks = append(spaceTransferHooks, removeSpace)
	siteRemovalHooks = append(siteRemovalHooks, func(tx *Tx, siteID string) error { return removeTargetInstallations(tx, "site", siteID) })
}

// removeTargetInstallations deletes the installations on a space or site
// and records a space_installation_deleted (site_installation_deleted)
// event for each, in the caller's transaction.
func removeTargetInstallations(tx *Tx, kind, targetID string) error {
	rows, err := tx.QueryContext(tx.ctx, `SELECT `+targetCols+` `+targetFrom+` WHERE s.kind = ? AND s.target_id = ?`, kind, targetID)
	removed, err := collect(rows, err, scanTarget)
	if err != nil || len(removed) == 0 {
		return err
	}
	if _, err := tx.exec(`DELETE FROM integration_external_ids WHERE kind = ? AND target_id = ?`, kind, targetID); err != nil {
		return err
	}
	if _, err := tx.exec(`DELETE FROM integration_target_installations WHERE kind = ? AND target_id = ?`, kind, targetID); err != nil {
		return err
	}
	build := tx.db.targetRemoved.Load()
	if build == nil {
		return nil
	}
	var events []NewEvent
	for _, t := range removed {
		it, err := scanIntegration(tx.QueryRowContext(tx.ctx, `SELECT `+integrationSelect+` `+integrationFrom+` WHERE i.id = ?`, "", t.IntegrationID))
		if err != nil {
			return err
		}
		events = append(events, (*build)(it, t))
	}
	return insertEvents(tx, events)
}

// EnabledIntegration is an integration installed in an organization that
// reaches one space or site, with its organization installation.
type EnabledIntegration struct {
	Integration    Integration
	InstallationID string
	Status         string // the organization installation's status
}

// MaxEnabledIntegrations bounds the integrations one space or site lists
// (0.130.0 gives these lists no page parameters).
const MaxEnabledIntegrations = 1000

// EnabledIntegrations lists, by name, the integrations of orgID's
// installations that reach the space or site targetID (kind "space" or
// "site"): the integration's target allows the kind, and the installation
// either selects all of its organization's spaces (sites) or is installed
// on this one. search narrows to names containing it; userID is whose
// membership of each owner comes along (Integration.Membership). One query.
func (db *DB) EnabledIntegrations(ctx context.Context, orgID, kind, targetID, userID, search string) ([]EnabledIntegration, error) {
	selection := map[string]string{"space": "x.space_selection", "site": "x.site_selection"}[kind]
	if selection == "" {
		return nil, nil
	}
	q := `SELECT ` + integrationSelect + `, x.id, x.status FROM integration_installations x JOIN integrations i ON i.id = x.integration_id
 JOIN organizations o ON o.id = i.organization_id LEFT JOIN members m ON m.organization_id = i.organization_id AND m.user_id = ?
 WHERE x.organization_id = ? AND i.target IN ('all', ?)
 AND (` + selection + ` = 'all' OR EXISTS (SELECT 1 FROM integration_target_installations s
  WHERE s.installation_id = x.id AND s.kind = ? AND s.target_id = ?))`
	args := []any{userID, orgID, kind, kind, targetID}
	if search != "" {
		q += ` AND lower(i.name) LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscape(strings.ToLower(search))+"%")
	}
	q += ` ORDER BY i.name, i.id LIMIT ?`
	args = append(args, MaxEnabledIntegrations)
	rows, err := db.r().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []EnabledIntegration
	for rows.Next() {
		var e EnabledIntegration
		if e.Integration, err = scanIntegration(rows, &e.InstallationID, &e.Status); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
