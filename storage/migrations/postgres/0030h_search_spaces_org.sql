-- See the SQLite migration of the same name. organization_id
-- copies the space's organization onto its search_spaces row, kept by
-- triggers.
ALTER TABLE search_spaces ADD COLUMN organization_id TEXT COLLATE "C";
UPDATE search_spaces SET organization_id = (SELECT s.organization_id FROM spaces s WHERE s.id = search_spaces.space_id);
CREATE INDEX search_spaces_by_org ON search_spaces (organization_id, space_id);

CREATE FUNCTION search_space_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.organization_id := (SELECT s.organization_id FROM spaces s WHERE s.id = NEW.space_id);
  RETURN NEW;
END $$;
CREATE TRIGGER search_spaces_org_insert BEFORE INSERT ON search_spaces FOR EACH ROW EXECUTE FUNCTION search_space_org();
CREATE FUNCTION space_search_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE search_spaces SET organization_id = NEW.organization_id WHERE space_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER spaces_search_org AFTER UPDATE OF organization_id ON spaces FOR EACH ROW WHEN (NEW.organization_id IS DISTINCT FROM OLD.organization_id)
  EXECUTE FUNCTION space_search_org();
