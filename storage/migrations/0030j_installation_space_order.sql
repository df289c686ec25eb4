-- Issue 32: an installation token that selects some spaces pays for the
-- page, not the organization. Its list of spaces reads the installation's
-- space targets in the list's order (tree order, the spaces' sort keys):
-- space_key copies the target space's sort_key onto the target row (NULL
-- on site targets), kept equal by the triggers below in the writing
-- transaction, whatever the write path. A single space is one primary-key
-- read of the same table (installation_id, kind, target_id).
ALTER TABLE integration_target_installations ADD COLUMN space_key TEXT;
UPDATE integration_target_installations SET space_key = (SELECT s.sort_key FROM spaces s WHERE s.id = integration_target_installations.target_id)
WHERE kind = 'space';
CREATE INDEX integration_targets_by_space_order ON integration_target_installations (installation_id, space_key, target_id)
WHERE kind = 'space';

CREATE TRIGGER targets_space_key_insert AFTER INSERT ON integration_target_installations WHEN NEW.kind = 'space'
BEGIN
  UPDATE integration_target_installations SET space_key = (SELECT s.sort_key FROM spaces s WHERE s.id = NEW.target_id)
  WHERE installation_id = NEW.installation_id AND kind = 'space' AND target_id = NEW.target_id;
END;
CREATE TRIGGER spaces_target_key AFTER UPDATE OF sort_key ON spaces WHEN NEW.sort_key IS NOT OLD.sort_key
BEGIN
  UPDATE integration_target_installations SET space_key = NEW.sort_key WHERE kind = 'space' AND target_id = NEW.id;
END;
