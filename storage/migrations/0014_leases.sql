-- Leases on background work (several replicas on one database).
-- A claimed OpenAPI run or translation run records which process holds it
-- (lease_owner, the process id of storage.DB) and until when (lease_until,
-- Unix ms on the storage clock). The holder renews the lease while it runs;
-- once it has run out (its owner died), another process claims the run
-- again, and the first owner's late outcome is refused (the outcome's
-- UPDATE names the owner).
ALTER TABLE openapi_specs ADD COLUMN lease_owner TEXT;
ALTER TABLE openapi_specs ADD COLUMN lease_until INTEGER;
ALTER TABLE translations ADD COLUMN lease_owner TEXT;
ALTER TABLE translations ADD COLUMN lease_until INTEGER;

-- The wrong-password budget of a protected share link, shared by every
-- process (storage.TakeShareGuess): the theoretical arrival time of the
-- next guess (GCRA), Unix ms on the server clock; 0 when none was made.
ALTER TABLE site_share_links ADD COLUMN guess_tat INTEGER NOT NULL DEFAULT 0;

-- Periodic sweeps (trash purge, idempotency-key expiry) run on one process
-- at a time: the process holding the named lease.
CREATE TABLE job_leases (
    name        TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    lease_until INTEGER NOT NULL
);
