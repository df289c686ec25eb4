-- Custom fonts of an organization (createCustomFont): a family name and its
-- faces, one file per weight. The files are copied out of the uploads they
-- were sent as (uploads are purged after an hour); a file's id is in its
-- public URL, so a replaced file gets a new URL and the old one can be
-- cached forever.
CREATE TABLE custom_fonts (
    id              TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    font_family     TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX custom_fonts_org ON custom_fonts (organization_id, created_at, id);
CREATE TABLE custom_font_files (
    id           TEXT COLLATE "C" PRIMARY KEY,
    font_id      TEXT COLLATE "C" NOT NULL REFERENCES custom_fonts(id) ON DELETE CASCADE,
    weight       INTEGER NOT NULL,
    format       TEXT NOT NULL,
    bytes        BYTEA NOT NULL,
    created_at   BIGINT NOT NULL,
    UNIQUE (font_id, weight)
);
