-- Published content for readers: site redirects and tracked site
-- events, as on SQLite.
CREATE TABLE site_redirects (
    id          TEXT COLLATE "C" PRIMARY KEY,
    site_id     TEXT COLLATE "C" NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    source      TEXT COLLATE "C" NOT NULL,
    destination TEXT COLLATE "C" NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (site_id, source)
);
CREATE INDEX site_redirects_by_site ON site_redirects (site_id, created_at, id);

CREATE TABLE site_events (
    id            TEXT COLLATE "C" PRIMARY KEY,
    site_id       TEXT COLLATE "C" NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    type          TEXT COLLATE "C" NOT NULL,
    at            BIGINT NOT NULL,
    visitor_id    TEXT COLLATE "C" NOT NULL,
    session_id    TEXT COLLATE "C" NOT NULL,
    page_id       TEXT COLLATE "C",
    site_space_id TEXT COLLATE "C",
    claims        TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    event         TEXT COLLATE "C" NOT NULL
);
CREATE INDEX site_events_by_site ON site_events (site_id, at);

ALTER TABLE sites ADD COLUMN visitor_fallback_url TEXT COLLATE "C";

CREATE TABLE site_customizations (
    site_id       TEXT COLLATE "C" NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    site_space_id TEXT COLLATE "C" NOT NULL,
    settings      TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (site_id, site_space_id)
);
