-- Stored per-member spaces count (the live spaces granted to the member,
-- directly or through a team), so the members list reads it with the row
-- instead of counting grants per row (that subquery made a page of 100
-- members cost 31 ms once grants existed). Kept exact by storage: every
-- write that changes grants on spaces, team memberships, or whether a
-- granted space is live recounts the members concerned in the same
-- transaction (storage/space_counts.go).
-- Named 0002a so that it sorts right after 0002_spaces on every database.
ALTER TABLE members ADD COLUMN space_count BIGINT NOT NULL DEFAULT 0;
UPDATE members SET space_count = (SELECT COUNT(*) FROM (
   SELECT g.target_id FROM content_grants g WHERE g.organization_id = members.organization_id
     AND g.principal_kind = 'user' AND g.principal_id = members.user_id AND g.target_kind = 'space'
   UNION
   SELECT g.target_id FROM team_members tm CROSS JOIN content_grants g
   WHERE tm.organization_id = members.organization_id AND tm.user_id = members.user_id
     AND g.organization_id = tm.organization_id AND g.principal_kind = 'team' AND g.principal_id = tm.team_id AND g.target_kind = 'space') x
   CROSS JOIN spaces s WHERE s.id = x.target_id AND s.deleted_at IS NULL);
