-- An installation token that selects some spaces pays for the
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

-- The total of that list: the live spaces each installation is installed
-- on, kept by triggers (a target added or removed while its space is live,
-- a space trashed, restored or deleted while targeted), so that the list's
-- total is one row read, not a count along the selection.
CREATE TABLE installation_space_counts (
    installation_id TEXT PRIMARY KEY REFERENCES integration_installations(id) ON DELETE CASCADE,
    live            INTEGER NOT NULL DEFAULT 0
);
INSERT INTO installation_space_counts (installation_id, live)
SELECT t.installation_id, COUNT(*) FROM integration_target_installations t JOIN spaces s ON s.id = t.target_id
WHERE t.kind = 'space' AND s.deleted_at IS NULL GROUP BY t.installation_id;

CREATE TRIGGER targets_live_insert AFTER INSERT ON integration_target_installations
WHEN NEW.kind = 'space' AND EXISTS (SELECT 1 FROM spaces s WHERE s.id = NEW.target_id AND s.deleted_at IS NULL)
BEGIN
  INSERT INTO installation_space_counts (installation_id, live) VALUES (NEW.installation_id, 1)
  ON CONFLICT (installation_id) DO UPDATE SET live = live + 1;
END;
CREATE TRIGGER targets_live_delete AFTER DELETE ON integration_target_installations
WHEN OLD.kind = 'space' AND EXISTS (SELECT 1 FROM spaces s WHERE s.id = OLD.target_id AND s.deleted_at IS NULL)
BEGIN
  UPDATE installation_space_counts SET live = live - 1 WHERE installation_id = OLD.installation_id;
END;
CREATE TRIGGER spaces_targets_live AFTER UPDATE OF deleted_at ON spaces
WHEN (NEW.deleted_at IS NULL) <> (OLD.deleted_at IS NULL)
BEGIN
  UPDATE installation_space_counts SET live = live + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END)
  WHERE installation_id IN (SELECT t.installation_id FROM integration_target_installations t WHERE t.kind = 'space' AND t.target_id = NEW.id);
END;
CREATE TRIGGER spaces_targets_gone AFTER DELETE ON spaces WHEN OLD.deleted_at IS NULL
BEGIN
  UPDATE installation_space_counts SET live = live - 1
  WHERE installation_id IN (SELECT t.installation_id FROM integration_target_installations t WHERE t.kind = 'space' AND t.target_id = OLD.id);
END;
