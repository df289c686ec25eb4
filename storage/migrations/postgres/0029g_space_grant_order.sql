-- See the SQLite migration of the same name. space_key copies the
-- granted space's sort_key onto the grant, kept by triggers.
ALTER TABLE content_grants ADD COLUMN space_key TEXT COLLATE "C";
UPDATE content_grants SET space_key = (SELECT s.sort_key FROM spaces s WHERE s.id = content_grants.target_id)
WHERE target_kind = 'space';
CREATE INDEX content_grants_by_space_order ON content_grants (organization_id, principal_kind, principal_id, space_key, target_id)
WHERE target_kind = 'space';

CREATE FUNCTION grant_space_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.space_key := (SELECT s.sort_key FROM spaces s WHERE s.id = NEW.target_id);
  RETURN NEW;
END $$;
CREATE TRIGGER grants_space_key_insert BEFORE INSERT ON content_grants FOR EACH ROW WHEN (NEW.target_kind = 'space')
  EXECUTE FUNCTION grant_space_key();
CREATE FUNCTION space_grant_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE content_grants SET space_key = NEW.sort_key WHERE target_kind = 'space' AND target_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER spaces_grant_key AFTER UPDATE OF sort_key ON spaces FOR EACH ROW WHEN (NEW.sort_key IS DISTINCT FROM OLD.sort_key)
  EXECUTE FUNCTION space_grant_key();

-- Keeping space_key is not an access change (see the SQLite migration).
DROP TRIGGER access_grants_update ON content_grants;
CREATE TRIGGER access_grants_update AFTER UPDATE OF organization_id, target_kind, target_id, principal_kind, principal_id, role ON content_grants
  FOR EACH ROW EXECUTE FUNCTION access_counter_bump();

-- The spaces every member reads (public, unlisted): see the SQLite migration.
CREATE INDEX spaces_by_open_visibility ON spaces (organization_id, visibility, deleted_at, sort_key, id)
WHERE visibility = 'public' OR visibility = 'unlisted';
