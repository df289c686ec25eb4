package seed

import (
	"context"
	"time"

	"docsapi/auth"
	"docsapi/storage"
)

func init() {
	register("installation-every", "install an integration (space:metadata:read) on one space in n, in creation order, with selected spaces; its token is installation_token (runs after spaces)", InstallationEvery)
}

// InstallationEvery publishes an integration, installs it on the
// organization with space selection "selected", installs it on every n-th
// space in creation order (its targets written with direct SQL, so that
// the storage's triggers fill their copied sort keys, creation times and
// counts), and mints an installation token valid for a day
// (e.Out["installation_token"]).
func InstallationEvery(ctx context.Context, e *Env, n int) error {
	const name = "bench-installation"
	if err := e.DB.PublishIntegration(ctx, storage.IntegrationPublish{Name: name, OrganizationID: e.Org, Runtime: "v1", Visibility: "public",
		Target: "all", Title: "Bench", Description: "Bench installation", Script: "export default {}", Scopes: []string{"space:metadata:read"}}, storage.NewID()); err != nil {
		return err
	}
	it, err := e.DB.IntegrationByName(ctx, name, e.Admin)
	if err != nil {
		return err
	}
	in, err := e.DB.CreateInstallation(ctx, it.ID, e.Org, storage.InstallationChange{Status: "active",
		Events: func(*storage.Installation, storage.Installation) []storage.NewEvent { return nil }})
	if err != nil {
		return err
	}
	err = e.DB.Write(ctx, func(tx *storage.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE integration_installations SET space_selection = 'selected' WHERE id = ?`, in.ID); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM spaces WHERE organization_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, e.Org)
		if err != nil {
			return err
		}
		var targets [][]any
		now := time.Now().UnixMilli()
		for i := 0; rows.Next(); i++ {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			if i%n == n/2 {
				targets = append(targets, []any{in.ID, it.ID, "space", id, "active", "{}", now, now})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		return batchInsert(tx, ctx, "integration_target_installations",
			[]string{"installation_id", "integration_id", "kind", "target_id", "status", "configuration", "created_at", "updated_at"}, targets)
	})
	if err != nil {
		return err
	}
	secret, hash := auth.NewToken()
	exp := time.Now().Add(24 * time.Hour)
	org := e.Org
	if err := e.DB.CreateInstallationToken(ctx, in.ID, &storage.Token{UserID: e.Admin, Hash: hash, OrganizationID: &org, ExpiresAt: &exp}); err != nil {
		return err
	}
	e.Out["installation"], e.Out["installation_token"] = in.ID, secret
	return nil
}
