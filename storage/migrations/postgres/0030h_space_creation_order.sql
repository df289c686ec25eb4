-- See the SQLite migration of the same name. space_created copies
-- the granted space's created_at onto the grant, kept by triggers.
CREATE INDEX spaces_by_parent_created ON spaces (organization_id, parent_id, deleted_at, created_at, id);
CREATE INDEX spaces_by_open_created ON spaces (organization_id, visibility, deleted_at, created_at, id)
WHERE visibility = 'public' OR visibility = 'unlisted';

ALTER TABLE content_grants ADD COLUMN space_created BIGINT;
UPDATE content_grants SET space_created = (SELECT s.created_at FROM spaces s WHERE s.id = content_grants.target_id)
WHERE target_kind = 'space';
CREATE INDEX content_grants_by_space_created ON content_grants (organization_id, principal_kind, principal_id, space_created, target_id)
WHERE target_kind = 'space';

CREATE FUNCTION grant_space_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.space_created := (SELECT s.created_at FROM spaces s WHERE s.id = NEW.target_id);
  RETURN NEW;
END $$;
CREATE TRIGGER grants_space_created_insert BEFORE INSERT ON content_grants FOR EACH ROW WHEN (NEW.target_kind = 'space')
  EXECUTE FUNCTION grant_space_created();
CREATE FUNCTION space_grant_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE content_grants SET space_created = NEW.created_at WHERE target_kind = 'space' AND target_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER spaces_grant_created AFTER UPDATE OF created_at ON spaces FOR EACH ROW WHEN (NEW.created_at IS DISTINCT FROM OLD.created_at)
  EXECUTE FUNCTION space_grant_created();
