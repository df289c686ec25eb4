-- Issue 32: see the SQLite migration of the same name. space_key copies the
-- target space's sort_key onto an installation's space target, kept by
-- triggers, so that the installation's list reads its targets in order.
ALTER TABLE integration_target_installations ADD COLUMN space_key TEXT COLLATE "C";
UPDATE integration_target_installations SET space_key = (SELECT s.sort_key FROM spaces s WHERE s.id = integration_target_installations.target_id)
WHERE kind = 'space';
CREATE INDEX integration_targets_by_space_order ON integration_target_installations (installation_id, space_key, target_id)
WHERE kind = 'space';

CREATE FUNCTION target_space_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.space_key := (SELECT s.sort_key FROM spaces s WHERE s.id = NEW.target_id);
  RETURN NEW;
END $$;
CREATE TRIGGER targets_space_key_insert BEFORE INSERT ON integration_target_installations FOR EACH ROW WHEN (NEW.kind = 'space')
  EXECUTE FUNCTION target_space_key();
CREATE FUNCTION space_target_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE integration_target_installations SET space_key = NEW.sort_key WHERE kind = 'space' AND target_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER spaces_target_key AFTER UPDATE OF sort_key ON spaces FOR EACH ROW WHEN (NEW.sort_key IS DISTINCT FROM OLD.sort_key)
  EXECUTE FUNCTION space_target_key();
