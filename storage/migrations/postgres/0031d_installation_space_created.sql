-- See the SQLite migration of the same name. space_created
-- copies the target space's created_at onto an installation's space target,
-- kept by triggers, so that a member's spaces seen through an installation
-- token read the installation's targets in creation order.
ALTER TABLE integration_target_installations ADD COLUMN space_created BIGINT;
UPDATE integration_target_installations SET space_created = (SELECT s.created_at FROM spaces s WHERE s.id = integration_target_installations.target_id)
WHERE kind = 'space';
CREATE INDEX integration_targets_by_space_created ON integration_target_installations (installation_id, space_created, target_id)
WHERE kind = 'space';

CREATE FUNCTION target_space_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.space_created := (SELECT s.created_at FROM spaces s WHERE s.id = NEW.target_id);
  RETURN NEW;
END $$;
CREATE TRIGGER targets_space_created_insert BEFORE INSERT ON integration_target_installations FOR EACH ROW WHEN (NEW.kind = 'space')
  EXECUTE FUNCTION target_space_created();
CREATE FUNCTION space_target_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE integration_target_installations SET space_created = NEW.created_at WHERE kind = 'space' AND target_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER spaces_target_created AFTER UPDATE OF created_at ON spaces FOR EACH ROW WHEN (NEW.created_at IS DISTINCT FROM OLD.created_at)
  EXECUTE FUNCTION space_target_created();
