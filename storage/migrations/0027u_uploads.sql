-- Files sent to the service's own signed upload URLs (generateStorageUploadURL):
-- kept until imported or attached, at most an hour, then purged. An upload
-- belongs to an organization; only that organization's imports read it.
CREATE TABLE uploads (
    key             TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    name            TEXT NOT NULL,
    content_type    TEXT NOT NULL,
    size            INTEGER NOT NULL,
    bytes           BLOB NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX uploads_created ON uploads (created_at);
