-- Files sent to the service's own signed upload URLs (generateStorageUploadURL):
-- kept until imported or attached, at most an hour, then purged. An upload
-- belongs to an organization; only that organization's imports read it.
CREATE TABLE uploads (
    key             TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    name            TEXT NOT NULL,
    content_type    TEXT NOT NULL,
    size            BIGINT NOT NULL,
    bytes           BYTEA NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX uploads_created ON uploads (created_at);
