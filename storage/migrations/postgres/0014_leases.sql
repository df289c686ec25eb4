-- PostgreSQL twin of migrations/0014_leases.sql: leases on background work.
ALTER TABLE openapi_specs ADD COLUMN lease_owner TEXT COLLATE "C";
ALTER TABLE openapi_specs ADD COLUMN lease_until BIGINT;
ALTER TABLE translations ADD COLUMN lease_owner TEXT COLLATE "C";
ALTER TABLE translations ADD COLUMN lease_until BIGINT;

ALTER TABLE site_share_links ADD COLUMN guess_tat BIGINT NOT NULL DEFAULT 0;

CREATE TABLE job_leases (
    name        TEXT COLLATE "C" PRIMARY KEY,
    owner       TEXT COLLATE "C" NOT NULL,
    lease_until BIGINT NOT NULL
);
