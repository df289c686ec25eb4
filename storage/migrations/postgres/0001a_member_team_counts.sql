-- Stored per-member team count, so the members list reads it with the row
-- instead of counting team_members per row (that subquery was a third of
-- the cost of a page of 100). Kept exact by storage/teams.go: every change
-- to team_members refreshes the affected members' counts in the same
-- transaction (refreshTeamCount, DeleteTeam). A family that writes
-- team_members must go through those helpers.
-- Named 0001a so that it sorts right after 0001_core on every database.
ALTER TABLE members ADD COLUMN team_count BIGINT NOT NULL DEFAULT 0;
UPDATE members SET team_count = (SELECT COUNT(*) FROM team_members tm
  WHERE tm.organization_id = members.organization_id AND tm.user_id = members.user_id);
