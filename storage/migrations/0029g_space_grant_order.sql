-- A reader who sees few spaces pays for the page, not the
-- organization. A member's list of spaces merges, in tree order, the
-- spaces of each collection they see (spaces_by_parent) with the spaces
-- granted to them or their teams. The second needs the grants of one
-- principal in the order of their spaces' sort keys: space_key copies the
-- granted space's sort_key onto the grant (NULL on collection grants), kept
-- equal by the triggers below in the writing transaction, whatever the
-- write path (API, admin command, seeder).
ALTER TABLE content_grants ADD COLUMN space_key TEXT;
UPDATE content_grants SET space_key = (SELECT s.sort_key FROM spaces s WHERE s.id = content_grants.target_id)
WHERE target_kind = 'space';
CREATE INDEX content_grants_by_space_order ON content_grants (organization_id, principal_kind, principal_id, space_key, target_id)
WHERE target_kind = 'space';

CREATE TRIGGER grants_space_key_insert AFTER INSERT ON content_grants WHEN NEW.target_kind = 'space'
BEGIN
  UPDATE content_grants SET space_key = (SELECT s.sort_key FROM spaces s WHERE s.id = NEW.target_id)
  WHERE target_kind = 'space' AND target_id = NEW.target_id AND principal_kind = NEW.principal_kind AND principal_id = NEW.principal_id;
END;
CREATE TRIGGER spaces_grant_key AFTER UPDATE OF sort_key ON spaces WHEN NEW.sort_key IS NOT OLD.sort_key
BEGIN
  UPDATE content_grants SET space_key = NEW.sort_key WHERE target_kind = 'space' AND target_id = NEW.id;
END;

-- Keeping space_key is not an access change: the access counter (0013)
-- moves on updates of what a grant means, not on its copied sort key (a
-- move of a granted space must not drop every member's cached access).
DROP TRIGGER access_grants_update;
CREATE TRIGGER access_grants_update AFTER UPDATE OF organization_id, target_kind, target_id, principal_kind, principal_id, role ON content_grants
BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;

-- The spaces every member reads (public, unlisted) in tree order: one
-- range of the merged view instead of a filter inside every collection's.
-- Partial, so creating a private space writes no entry.
CREATE INDEX spaces_by_open_visibility ON spaces (organization_id, visibility, deleted_at, sort_key, id)
WHERE visibility = 'public' OR visibility = 'unlisted';
