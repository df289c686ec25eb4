-- A member's list of spaces ordered by creation
-- (members/{userId}/spaces) read as the merge of ordered index ranges, like
-- the tree-ordered list (0029g): the spaces of one parent (or the top
-- level) by creation, the open ones by creation, and the spaces granted to
-- one principal by their creation time, which space_created copies onto the
-- grant (a space's created_at never changes; the trigger keeps the copy
-- anyway, in the writing transaction).
CREATE INDEX spaces_by_parent_created ON spaces (organization_id, parent_id, deleted_at, created_at, id);
CREATE INDEX spaces_by_open_created ON spaces (organization_id, visibility, deleted_at, created_at, id)
WHERE visibility = 'public' OR visibility = 'unlisted';

ALTER TABLE content_grants ADD COLUMN space_created INTEGER;
UPDATE content_grants SET space_created = (SELECT s.created_at FROM spaces s WHERE s.id = content_grants.target_id)
WHERE target_kind = 'space';
CREATE INDEX content_grants_by_space_created ON content_grants (organization_id, principal_kind, principal_id, space_created, target_id)
WHERE target_kind = 'space';

CREATE TRIGGER grants_space_created_insert AFTER INSERT ON content_grants WHEN NEW.target_kind = 'space'
BEGIN
  UPDATE content_grants SET space_created = (SELECT s.created_at FROM spaces s WHERE s.id = NEW.target_id)
  WHERE target_kind = 'space' AND target_id = NEW.target_id AND principal_kind = NEW.principal_kind AND principal_id = NEW.principal_id;
END;
CREATE TRIGGER spaces_grant_created AFTER UPDATE OF created_at ON spaces WHEN NEW.created_at IS NOT OLD.created_at
BEGIN
  UPDATE content_grants SET space_created = NEW.created_at WHERE target_kind = 'space' AND target_id = NEW.id;
END;
