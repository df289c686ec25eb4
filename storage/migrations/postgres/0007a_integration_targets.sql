-- Space installations now point at real spaces (the spaces family landed
-- after 0007). Space ids are checked when installing, and the installations
-- of a space go with it when it is purged from the trash or transferred to
-- another organization (storage hooks, in the same transaction). This index
-- finds them by space; target_id keeps no foreign key because it also holds
-- site ids.
CREATE INDEX integration_target_installations_by_target ON integration_target_installations (kind, target_id);

-- Drop what earlier versions accepted unchecked: space installations on ids
-- that are no spaces, or on spaces of another organization than their
-- installation's.
DELETE FROM integration_external_ids WHERE kind = 'space' AND NOT EXISTS (
    SELECT 1 FROM spaces sp JOIN integration_installations x ON x.organization_id = sp.organization_id
    WHERE sp.id = integration_external_ids.target_id AND x.id = integration_external_ids.installation_id);
DELETE FROM integration_target_installations WHERE kind = 'space' AND NOT EXISTS (
    SELECT 1 FROM spaces sp JOIN integration_installations x ON x.organization_id = sp.organization_id
    WHERE sp.id = integration_target_installations.target_id AND x.id = integration_target_installations.installation_id);
