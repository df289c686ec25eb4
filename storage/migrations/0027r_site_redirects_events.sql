-- Published content for readers. Site redirects send a path of a
-- site (its source, unique per site) to a section, a site space or a page;
-- URL resolution and getSiteRedirectBySource read them by source. Site
-- events are what renderers track (page views, searches, ...): the event's
-- JSON as sent, with the columns aggregations group and filter by.
CREATE TABLE site_redirects (
    id          TEXT PRIMARY KEY,
    site_id     TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    destination TEXT NOT NULL,                        -- JSON: {kind, siteSectionId | siteSpaceId [, pageId]}
    created_at  INTEGER NOT NULL,
    UNIQUE (site_id, source)
);
CREATE INDEX site_redirects_by_site ON site_redirects (site_id, created_at, id);

CREATE TABLE site_events (
    id            TEXT PRIMARY KEY,
    site_id       TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    type          TEXT NOT NULL,
    at            INTEGER NOT NULL,                   -- the event's timestamp (ms)
    visitor_id    TEXT NOT NULL,
    session_id    TEXT NOT NULL,
    page_id       TEXT,
    site_space_id TEXT,
    claims        TEXT NOT NULL DEFAULT '{}',         -- JSON: the visitor's claims
    event         TEXT NOT NULL                       -- JSON: the event as tracked
);
CREATE INDEX site_events_by_site ON site_events (site_id, at);

-- Where a renderer sends a visitor of a visitor-auth site whose token is
-- missing or refused (publishing auth's fallbackURL; NULL: none).
ALTER TABLE sites ADD COLUMN visitor_fallback_url TEXT;

-- Site customization settings: the site's own (site_space_id '') and each
-- site space's overrides, as JSON objects.
CREATE TABLE site_customizations (
    site_id       TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    site_space_id TEXT NOT NULL,
    settings      TEXT NOT NULL,
    PRIMARY KEY (site_id, site_space_id)
);
