-- Integrations: published integrations, their images, installations (on
-- organizations, spaces and sites), installation tokens, the event log with
-- its traces, and the queue of deliveries to development tunnels.
-- Lists and filters use side tables (scopes, categories, block domains,
-- external ids) rather than JSON functions, so the SQL stays portable.

CREATE TABLE integrations (
    id              TEXT COLLATE "C" PRIMARY KEY,
    name            TEXT COLLATE "C" NOT NULL UNIQUE,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    version         BIGINT NOT NULL,
    runtime         TEXT COLLATE "C" NOT NULL,               -- v1 | v2
    title           TEXT COLLATE "C" NOT NULL,
    description     TEXT COLLATE "C" NOT NULL,
    summary         TEXT COLLATE "C" NOT NULL DEFAULT '',
    visibility      TEXT COLLATE "C" NOT NULL,               -- public | private | unlisted
    target          TEXT COLLATE "C" NOT NULL,               -- all | site | space | organization
    scopes          TEXT COLLATE "C" NOT NULL DEFAULT '[]',  -- JSON, in publication order
    categories      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    blocks          TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    content_sources TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    external_links  TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    configurations  TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    script          TEXT COLLATE "C" NOT NULL,
    secrets         TEXT COLLATE "C" NOT NULL DEFAULT '{}',  -- write-only: never returned by the API
    csp             TEXT COLLATE "C",                        -- JSON string or object; NULL when unset
    icon_file       TEXT COLLATE "C",                        -- integration_files.id
    preview_files   TEXT COLLATE "C" NOT NULL DEFAULT '[]',  -- JSON list of integration_files.id
    has_blocks      BIGINT NOT NULL DEFAULT 0,
    has_sources     BIGINT NOT NULL DEFAULT 0,
    signing_secret  TEXT COLLATE "C" NOT NULL,               -- HMAC key of deliveries to the tunnel
    dev_tunnel_url  TEXT COLLATE "C",                        -- NULL: development mode off
    dev_all         BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX integrations_by_org ON integrations (organization_id, name);

CREATE TABLE integration_scopes (
    integration_id TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    scope          TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (integration_id, scope)
);
CREATE INDEX integration_scopes_by_scope ON integration_scopes (scope);

CREATE TABLE integration_categories (
    integration_id TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    category       TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (integration_id, category)
);
CREATE INDEX integration_categories_by_category ON integration_categories (category);

-- Hosts of the blocks' urlUnfurl patterns, lower case.
CREATE TABLE integration_block_domains (
    integration_id TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    domain         TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (integration_id, domain)
);
CREATE INDEX integration_block_domains_by_domain ON integration_block_domains (domain);

-- Icons and preview images, decoded and validated, served by URL.
CREATE TABLE integration_files (
    id             TEXT COLLATE "C" PRIMARY KEY,
    integration_id TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    content_type   TEXT COLLATE "C" NOT NULL,
    width          BIGINT NOT NULL,
    height         BIGINT NOT NULL,
    data           BYTEA NOT NULL,
    created_at     BIGINT NOT NULL
);
CREATE INDEX integration_files_by_integration ON integration_files (integration_id);

CREATE TABLE integration_installations (
    id              TEXT COLLATE "C" PRIMARY KEY,
    integration_id  TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    status          TEXT COLLATE "C" NOT NULL,               -- active | pending | paused
    space_selection TEXT COLLATE "C" NOT NULL DEFAULT 'all',
    site_selection  TEXT COLLATE "C" NOT NULL DEFAULT 'all',
    configuration   TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    external_ids    TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    UNIQUE (integration_id, organization_id)
);
CREATE INDEX integration_installations_by_integration ON integration_installations (integration_id, created_at, id);
CREATE INDEX integration_installations_by_org ON integration_installations (organization_id, created_at, id);

-- Installations on one space or site, under an organization installation.
-- TODO(spaces, sites): target_id has no foreign key until the spaces and
-- sites tables exist; add one (ON DELETE CASCADE) when they land.
CREATE TABLE integration_target_installations (
    installation_id TEXT COLLATE "C" NOT NULL REFERENCES integration_installations(id) ON DELETE CASCADE,
    integration_id  TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    kind            TEXT COLLATE "C" NOT NULL,               -- space | site
    target_id       TEXT COLLATE "C" NOT NULL,
    status          TEXT COLLATE "C" NOT NULL,
    configuration   TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    external_ids    TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (installation_id, kind, target_id),
    UNIQUE (integration_id, kind, target_id)
);
CREATE INDEX integration_target_installations_by_integration ON integration_target_installations (integration_id, kind, created_at, target_id);

-- External ids of installations ('' kind and target: the organization
-- installation itself), for the externalId filters.
CREATE TABLE integration_external_ids (
    installation_id TEXT COLLATE "C" NOT NULL REFERENCES integration_installations(id) ON DELETE CASCADE,
    kind            TEXT COLLATE "C" NOT NULL,               -- '' | space | site
    target_id       TEXT COLLATE "C" NOT NULL,               -- '' for the organization installation
    external_id     TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (installation_id, kind, target_id, external_id)
);
CREATE INDEX integration_external_ids_by_value ON integration_external_ids (external_id);

-- Installation tokens (rows of tokens, kind 'installation'): revoked with
-- their installation.
CREATE TABLE integration_installation_tokens (
    token_id        TEXT COLLATE "C" PRIMARY KEY REFERENCES tokens(id) ON DELETE CASCADE,
    installation_id TEXT COLLATE "C" NOT NULL REFERENCES integration_installations(id) ON DELETE CASCADE
);
CREATE INDEX integration_installation_tokens_by_installation ON integration_installation_tokens (installation_id);

-- The event log. installation_id has no foreign key: an installation's
-- events outlive it (installation_deleted is about a removed installation).
CREATE TABLE integration_events (
    id              TEXT COLLATE "C" PRIMARY KEY,
    seq             BIGINT NOT NULL UNIQUE,     -- recording order (events of one millisecond too)
    integration_id  TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    installation_id TEXT COLLATE "C",
    organization_id TEXT COLLATE "C",                        -- organization the event comes from
    type            TEXT COLLATE "C" NOT NULL,
    payload         TEXT COLLATE "C" NOT NULL,               -- JSON, exactly as delivered
    status          TEXT COLLATE "C" NOT NULL,               -- pending | success | failed
    created_at      BIGINT NOT NULL
);
CREATE INDEX integration_events_by_integration ON integration_events (integration_id, seq);

CREATE TABLE integration_event_logs (
    event_id  TEXT COLLATE "C" NOT NULL REFERENCES integration_events(id) ON DELETE CASCADE,
    seq       BIGINT NOT NULL,
    level     TEXT COLLATE "C" NOT NULL,                     -- debug | info | warn | error
    message   TEXT COLLATE "C" NOT NULL,
    logged_at BIGINT NOT NULL,
    PRIMARY KEY (event_id, seq)
);

-- Deliveries still to make. A row is leased (next_attempt_at pushed past the
-- attempt's timeout) while an attempt runs, so a crash mid-attempt only
-- delays it; the row is deleted when the event reaches success or failed.
CREATE TABLE integration_deliveries (
    event_id        TEXT COLLATE "C" PRIMARY KEY REFERENCES integration_events(id) ON DELETE CASCADE,
    integration_id  TEXT COLLATE "C" NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX integration_deliveries_due ON integration_deliveries (next_attempt_at, event_id);
