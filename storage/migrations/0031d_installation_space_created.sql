-- A member's spaces in creation order (members/{userId}/spaces)
-- read through an installation token pay for the page, not the
-- organization. The list is the installation's space targets in creation
-- order, each checked against the member's view by primary key:
-- space_created copies the target space's created_at onto the target row
-- (NULL on site targets), as 0030h does for grants; a space's created_at
-- never changes, the trigger keeps the copy anyway in the writing
-- transaction.
ALTER TABLE integration_target_installations ADD COLUMN space_created INTEGER;
UPDATE integration_target_installations SET space_created = (SELECT s.created_at FROM spaces s WHERE s.id = integration_target_installations.target_id)
WHERE kind = 'space';
CREATE INDEX integration_targets_by_space_created ON integration_target_installations (installation_id, space_created, target_id)
WHERE kind = 'space';

CREATE TRIGGER targets_space_created_insert AFTER INSERT ON integration_target_installations WHEN NEW.kind = 'space'
BEGIN
  UPDATE integration_target_installations SET space_created = (SELECT s.created_at FROM spaces s WHERE s.id = NEW.target_id)
  WHERE installation_id = NEW.installation_id AND kind = 'space' AND target_id = NEW.target_id;
END;
CREATE TRIGGER spaces_target_created AFTER UPDATE OF created_at ON spaces WHEN NEW.created_at IS NOT OLD.created_at
BEGIN
  UPDATE integration_target_installations SET space_created = NEW.created_at WHERE kind = 'space' AND target_id = NEW.id;
END;
