-- PostgreSQL drops the foreign key from teams to organizations here (its
-- 0033b: the INSERT checks the organization, storage/teams.go); SQLite
-- keeps it: its check takes no lock. Nothing to change.
SELECT 1;
