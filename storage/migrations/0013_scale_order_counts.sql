-- Costs flat in the size of an organization.
--
-- 1. Positions become fractional order keys (storage/order.go): a move or
--    an insert writes one key between its two neighbours, found by the
--    indexes below; nothing is renumbered. Existing positions are ranked
--    per level (collections and spaces share one order; trashed spaces keep
--    their place) and rewritten as integer keys 'l' + 12 digits, which are
--    valid keys in the same order; sort keys are rebuilt from them.
--    printf is SQLite's (PostgreSQL: 'l' || lpad(n::text, 12, '0')).
CREATE TEMP TABLE order_rank (kind TEXT NOT NULL, id TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, id));
INSERT INTO order_rank (kind, id, n)
SELECT kind, id, ROW_NUMBER() OVER (PARTITION BY organization_id, parent_id ORDER BY position, id) FROM (
  SELECT 'collection' AS kind, id, organization_id, parent_id, position FROM collections
  UNION ALL SELECT 'space', id, organization_id, parent_id, position FROM spaces) x;
UPDATE collections SET position = 'l' || printf('%012d', (SELECT r.n FROM order_rank r WHERE r.kind = 'collection' AND r.id = collections.id));
UPDATE spaces SET position = 'l' || printf('%012d', (SELECT r.n FROM order_rank r WHERE r.kind = 'space' AND r.id = spaces.id));
DROP TABLE order_rank;

CREATE TEMP TABLE order_keys (id TEXT PRIMARY KEY, sort_key TEXT NOT NULL);
WITH RECURSIVE tree (id, sort_key) AS (
  SELECT id, position FROM collections WHERE parent_id IS NULL
  UNION ALL SELECT c.id, t.sort_key || '/' || c.position FROM collections c JOIN tree t ON c.parent_id = t.id)
INSERT INTO order_keys (id, sort_key) SELECT id, sort_key FROM tree;
UPDATE collections SET sort_key = COALESCE((SELECT k.sort_key FROM order_keys k WHERE k.id = collections.id), position);
UPDATE spaces SET sort_key = CASE WHEN parent_id IS NULL THEN position
  ELSE COALESCE((SELECT k.sort_key FROM order_keys k WHERE k.id = spaces.parent_id) || '/' || position, position) END;
DROP TABLE order_keys;

-- The neighbours of a position, and the last one, in one seek per table.
CREATE INDEX collections_by_level ON collections (organization_id, parent_id, position, id);
CREATE INDEX spaces_by_level ON spaces (organization_id, parent_id, position, id);
-- Fewer index writes per created space: the purge only looks for trashed
-- spaces and a collection's list only for spaces in a collection, so those
-- two indexes leave out the rows they are never asked for (partial indexes:
-- SQLite and PostgreSQL both have them; "parent_id = ?" implies the
-- condition, so the planner still picks them).
DROP INDEX spaces_by_deleted;
CREATE INDEX spaces_by_deleted ON spaces (deleted_at) WHERE deleted_at IS NOT NULL;
DROP INDEX spaces_by_parent;
CREATE INDEX spaces_by_parent ON spaces (parent_id, deleted_at, sort_key, id) WHERE parent_id IS NOT NULL;

-- 2. Live spaces counted by class: organization, parent collection ('' at
--    the top level), visibility and default level ('' for none), the
--    dimensions a reader's view is made of (graph/permissions.go). A list's
--    total is then a sum over at most a few hundred classes plus the
--    reader's granted spaces outside them, instead of a count of every
--    space after each write. Triggers keep it exact on every write path
--    (API, admin command, bulk seeding); PostgreSQL would write them as
--    trigger functions.
CREATE TABLE space_class_counts (
    organization_id TEXT NOT NULL,
    parent_id       TEXT NOT NULL,
    visibility      TEXT NOT NULL,
    default_level   TEXT NOT NULL,
    live            INTEGER NOT NULL,
    PRIMARY KEY (organization_id, parent_id, visibility, default_level)
);
INSERT INTO space_class_counts (organization_id, parent_id, visibility, default_level, live)
SELECT organization_id, COALESCE(parent_id, ''), visibility, COALESCE(default_level, ''), COUNT(*)
FROM spaces WHERE deleted_at IS NULL GROUP BY organization_id, COALESCE(parent_id, ''), visibility, COALESCE(default_level, '');

CREATE TRIGGER spaces_count_insert AFTER INSERT ON spaces WHEN NEW.deleted_at IS NULL
BEGIN
  INSERT INTO space_class_counts (organization_id, parent_id, visibility, default_level, live)
  VALUES (NEW.organization_id, COALESCE(NEW.parent_id, ''), NEW.visibility, COALESCE(NEW.default_level, ''), 1)
  ON CONFLICT (organization_id, parent_id, visibility, default_level) DO UPDATE SET live = live + 1;
END;
CREATE TRIGGER spaces_count_delete AFTER DELETE ON spaces WHEN OLD.deleted_at IS NULL
BEGIN
  UPDATE space_class_counts SET live = live - 1 WHERE organization_id = OLD.organization_id
    AND parent_id = COALESCE(OLD.parent_id, '') AND visibility = OLD.visibility AND default_level = COALESCE(OLD.default_level, '');
END;
CREATE TRIGGER spaces_count_leave AFTER UPDATE OF organization_id, parent_id, visibility, default_level, deleted_at ON spaces
WHEN OLD.deleted_at IS NULL
BEGIN
  UPDATE space_class_counts SET live = live - 1 WHERE organization_id = OLD.organization_id
    AND parent_id = COALESCE(OLD.parent_id, '') AND visibility = OLD.visibility AND default_level = COALESCE(OLD.default_level, '');
END;
CREATE TRIGGER spaces_count_enter AFTER UPDATE OF organization_id, parent_id, visibility, default_level, deleted_at ON spaces
WHEN NEW.deleted_at IS NULL
BEGIN
  INSERT INTO space_class_counts (organization_id, parent_id, visibility, default_level, live)
  VALUES (NEW.organization_id, COALESCE(NEW.parent_id, ''), NEW.visibility, COALESCE(NEW.default_level, ''), 1)
  ON CONFLICT (organization_id, parent_id, visibility, default_level) DO UPDATE SET live = live + 1;
END;

-- 3. Each member's granted live spaces (directly or through a team) by
--    class, so that a reader's total adds the granted spaces outside the
--    classes they see without reading the grants. Kept exact with
--    members.space_count, by the same recounts (storage/space_counts.go),
--    plus the grantees of a space whose class changes (move, visibility,
--    default level).
CREATE TABLE member_space_classes (
    organization_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    parent_id       TEXT NOT NULL,
    visibility      TEXT NOT NULL,
    default_level   TEXT NOT NULL,
    live            INTEGER NOT NULL,
    PRIMARY KEY (organization_id, user_id, parent_id, visibility, default_level)
);
INSERT INTO member_space_classes (organization_id, user_id, parent_id, visibility, default_level, live)
SELECT x.organization_id, x.user_id, COALESCE(s.parent_id, ''), s.visibility, COALESCE(s.default_level, ''), COUNT(*) FROM (
  SELECT g.organization_id, g.principal_id AS user_id, g.target_id FROM content_grants g
  WHERE g.principal_kind = 'user' AND g.target_kind = 'space'
  UNION
  SELECT tm.organization_id, tm.user_id, g.target_id FROM team_members tm CROSS JOIN content_grants g
  WHERE g.organization_id = tm.organization_id AND g.principal_kind = 'team' AND g.principal_id = tm.team_id AND g.target_kind = 'space') x
CROSS JOIN spaces s WHERE s.id = x.target_id AND s.deleted_at IS NULL
GROUP BY x.organization_id, x.user_id, COALESCE(s.parent_id, ''), s.visibility, COALESCE(s.default_level, '');

-- 4. The access counter: bumped only by writes that change what decides a
--    member's access (memberships and roles, teams' members, the collection
--    tree and default levels, grants), so that each member's access data and
--    the visibility derived from it stay cached across every other write
--    (creating, renaming, moving spaces) instead of being rebuilt after each.
--    change_counter.n still moves on every write.
ALTER TABLE change_counter ADD COLUMN access INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER access_grants_insert AFTER INSERT ON content_grants BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_grants_update AFTER UPDATE ON content_grants BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_grants_delete AFTER DELETE ON content_grants BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_team_members_insert AFTER INSERT ON team_members BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_team_members_update AFTER UPDATE OF team_id, user_id, organization_id ON team_members BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_team_members_delete AFTER DELETE ON team_members BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_members_insert AFTER INSERT ON members BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_members_update AFTER UPDATE OF role, sso, organization_id, user_id ON members BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_members_delete AFTER DELETE ON members BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_collections_insert AFTER INSERT ON collections BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_collections_update AFTER UPDATE OF parent_id, default_level, organization_id ON collections BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_collections_delete AFTER DELETE ON collections BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
-- A member's granted-space classes are part of a reader's list total
-- (storage/spaces.go, spaceCount), cached by this counter too.
CREATE TRIGGER access_member_classes_insert AFTER INSERT ON member_space_classes BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_member_classes_update AFTER UPDATE ON member_space_classes BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
CREATE TRIGGER access_member_classes_delete AFTER DELETE ON member_space_classes BEGIN UPDATE change_counter SET access = access + 1 WHERE id = 1; END;
