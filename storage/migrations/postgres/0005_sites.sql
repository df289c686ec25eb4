-- Docs sites: their structure (section groups, sections, site spaces), share
-- links, adaptive schema and visitor signing key.
--
-- Order: every group, section and site space has a `position` in its
-- container (the root of the site, a group, or a section) and a `sort_key`:
-- the container's sort_key, '/', then its own position (fixed-width text).
-- Ordering by sort_key lists a site in structure order, so every list and
-- the published structure return the stored order. Sections at the root and
-- groups share one sequence of positions (the root of a site with sections).
--
-- Structure writes are whole-structure plans checked against
-- `structure_version` (optimistic concurrency): a write made from a stale
-- read is refused and retried by the resolver.

CREATE TABLE sites (
    id                         TEXT COLLATE "C" PRIMARY KEY,
    organization_id            TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    type                       TEXT COLLATE "C" NOT NULL,
    title                      TEXT COLLATE "C" NOT NULL,
    basename                   TEXT COLLATE "C" NOT NULL,
    hostname                   TEXT COLLATE "C" UNIQUE,            -- custom hostname, unique across the service
    proxy                      TEXT COLLATE "C",                   -- proxy origin (host/path)
    visibility                 TEXT COLLATE "C" NOT NULL,
    published                  BIGINT NOT NULL DEFAULT 0,
    adaptive_content           BIGINT NOT NULL DEFAULT 0,
    agents_context             TEXT COLLATE "C" NOT NULL,
    icon                       TEXT COLLATE "C",                   -- JSON of the icon object; NULL: none
    default_site_space_id      TEXT COLLATE "C",                   -- default of the root (site without sections)
    default_section_id         TEXT COLLATE "C",
    structure_version          BIGINT NOT NULL DEFAULT 0,
    adaptive_schema            TEXT COLLATE "C" NOT NULL,          -- JSON Schema draft-07 of visitor claims
    adaptive_schema_updated_at BIGINT NOT NULL,
    visitor_secret             TEXT COLLATE "C" NOT NULL,          -- HS256 key of visitor tokens
    visitor_secret_rotated_at  BIGINT NOT NULL,
    created_at                 BIGINT NOT NULL,
    updated_at                 BIGINT NOT NULL,
    UNIQUE (organization_id, basename)
);
CREATE INDEX sites_by_org ON sites (organization_id, created_at, id);

CREATE TABLE site_section_groups (
    id         TEXT COLLATE "C" PRIMARY KEY,
    site_id    TEXT COLLATE "C" NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    title      TEXT COLLATE "C" NOT NULL,
    icon       TEXT COLLATE "C",
    position   TEXT COLLATE "C" NOT NULL,
    sort_key   TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX site_section_groups_by_site ON site_section_groups (site_id, sort_key, id);

CREATE TABLE site_sections (
    id                    TEXT COLLATE "C" PRIMARY KEY,
    site_id               TEXT COLLATE "C" NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    group_id              TEXT COLLATE "C",                       -- NULL: at the root
    title                 TEXT COLLATE "C" NOT NULL,
    description           TEXT COLLATE "C",
    icon                  TEXT COLLATE "C",
    path                  TEXT COLLATE "C" NOT NULL,
    condition             TEXT COLLATE "C",
    default_site_space_id TEXT COLLATE "C",
    position              TEXT COLLATE "C" NOT NULL,
    sort_key              TEXT COLLATE "C" NOT NULL,
    created_at            BIGINT NOT NULL
);
CREATE INDEX site_sections_by_site ON site_sections (site_id, sort_key, id);

CREATE TABLE site_spaces (
    id         TEXT COLLATE "C" PRIMARY KEY,
    site_id    TEXT COLLATE "C" NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    section_id TEXT COLLATE "C",                                  -- NULL: at the root
    space_id   TEXT COLLATE "C" NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    path       TEXT COLLATE "C" NOT NULL,
    condition  TEXT COLLATE "C",
    position   TEXT COLLATE "C" NOT NULL,
    sort_key   TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX site_spaces_by_site ON site_spaces (site_id, sort_key, id);
CREATE INDEX site_spaces_by_space ON site_spaces (space_id, site_id);

CREATE TABLE site_share_links (
    id         TEXT COLLATE "C" PRIMARY KEY,
    site_id    TEXT COLLATE "C" NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    name       TEXT COLLATE "C" NOT NULL,
    share_key  TEXT COLLATE "C" NOT NULL UNIQUE,                  -- 256 random bits, base64url
    active     BIGINT NOT NULL DEFAULT 1,
    created_at BIGINT NOT NULL
);
CREATE INDEX site_share_links_by_site ON site_share_links (site_id, created_at, id);
