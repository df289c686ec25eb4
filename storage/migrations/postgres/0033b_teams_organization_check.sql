-- A team's organization is checked by the INSERT itself on PostgreSQL (the
-- organization's id read in the statement, NULL when it does not exist,
-- which the NOT NULL column refuses: storage/teams.go), not by a foreign
-- key: the key's check locked the organization's row FOR KEY SHARE in
-- every team insert, and concurrent creates of one organization made a
-- MultiXact of all the lockers each time (about a third of PostgreSQL's
-- CPU per team created, bench/pg.sh). Organizations are never
-- deleted, so the key's ON DELETE CASCADE never ran.
ALTER TABLE teams DROP CONSTRAINT teams_organization_id_fkey;
