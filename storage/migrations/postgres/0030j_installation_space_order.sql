-- See the SQLite migration of the same name. space_key copies the
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

-- The list's total: live spaces per installation, kept by triggers (see
-- the SQLite migration).
CREATE TABLE installation_space_counts (
    installation_id TEXT COLLATE "C" PRIMARY KEY REFERENCES integration_installations(id) ON DELETE CASCADE,
    live            BIGINT NOT NULL DEFAULT 0
);
INSERT INTO installation_space_counts (installation_id, live)
SELECT t.installation_id, COUNT(*) FROM integration_target_installations t JOIN spaces s ON s.id = t.target_id
WHERE t.kind = 'space' AND s.deleted_at IS NULL GROUP BY t.installation_id;

CREATE FUNCTION target_live_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.kind = 'space' AND EXISTS (SELECT 1 FROM spaces s WHERE s.id = NEW.target_id AND s.deleted_at IS NULL) THEN
      INSERT INTO installation_space_counts (installation_id, live) VALUES (NEW.installation_id, 1)
      ON CONFLICT (installation_id) DO UPDATE SET live = installation_space_counts.live + 1;
    END IF;
  ELSIF OLD.kind = 'space' AND EXISTS (SELECT 1 FROM spaces s WHERE s.id = OLD.target_id AND s.deleted_at IS NULL) THEN
    UPDATE installation_space_counts SET live = live - 1 WHERE installation_id = OLD.installation_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER targets_live_count AFTER INSERT OR DELETE ON integration_target_installations FOR EACH ROW
  EXECUTE FUNCTION target_live_count();

CREATE FUNCTION space_targets_live() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE installation_space_counts SET live = live - 1
    WHERE installation_id IN (SELECT t.installation_id FROM integration_target_installations t WHERE t.kind = 'space' AND t.target_id = OLD.id);
  ELSE
    UPDATE installation_space_counts SET live = live + (CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END)
    WHERE installation_id IN (SELECT t.installation_id FROM integration_target_installations t WHERE t.kind = 'space' AND t.target_id = NEW.id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER spaces_targets_live AFTER UPDATE OF deleted_at ON spaces FOR EACH ROW
  WHEN ((NEW.deleted_at IS NULL) <> (OLD.deleted_at IS NULL)) EXECUTE FUNCTION space_targets_live();
CREATE TRIGGER spaces_targets_gone AFTER DELETE ON spaces FOR EACH ROW WHEN (OLD.deleted_at IS NULL)
  EXECUTE FUNCTION space_targets_live();
