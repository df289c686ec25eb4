-- An organization-wide search reads the organization's indexed
-- spaces (search_spaces) when they are fewer than the spaces its reader
-- sees, so a search costs the smaller of the two, never every space of the
-- organization. organization_id copies the space's organization onto its
-- index row, kept by triggers in the writing transaction (any write path).
ALTER TABLE search_spaces ADD COLUMN organization_id TEXT;
UPDATE search_spaces SET organization_id = (SELECT s.organization_id FROM spaces s WHERE s.id = search_spaces.space_id);
CREATE INDEX search_spaces_by_org ON search_spaces (organization_id, space_id);

CREATE TRIGGER search_spaces_org_insert AFTER INSERT ON search_spaces
BEGIN
  UPDATE search_spaces SET organization_id = (SELECT s.organization_id FROM spaces s WHERE s.id = NEW.space_id) WHERE space_id = NEW.space_id;
END;
CREATE TRIGGER spaces_search_org AFTER UPDATE OF organization_id ON spaces WHEN NEW.organization_id IS NOT OLD.organization_id
BEGIN
  UPDATE search_spaces SET organization_id = NEW.organization_id WHERE space_id = NEW.id;
END;
