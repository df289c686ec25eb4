-- Users, API tokens, organizations, members, teams, invites and server keys.
-- Timestamps are Unix milliseconds; booleans are 0/1; lists are JSON text.

CREATE TABLE users (
    id           TEXT PRIMARY KEY,
    email        TEXT NOT NULL UNIQUE,          -- stored lower case
    display_name TEXT NOT NULL,
    photo_url    TEXT,
    signed_in    INTEGER NOT NULL DEFAULT 0,    -- 0: invited by e-mail, never signed in
    created_at   INTEGER NOT NULL
);

CREATE TABLE tokens (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    hash            TEXT NOT NULL UNIQUE,       -- SHA-256 of the secret, hex
    kind            TEXT NOT NULL,              -- api | session | installation
    organization_id TEXT,                       -- set for tokens scoped to one organization
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER
);

CREATE TABLE organizations (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    created_at           INTEGER NOT NULL,
    email_domains        TEXT NOT NULL DEFAULT '[]',
    hostname             TEXT UNIQUE,
    type                 TEXT NOT NULL DEFAULT 'business',
    use_case             TEXT,
    community_type       TEXT,
    default_role         TEXT,
    default_content_site TEXT,
    logo                 TEXT,
    sso                  INTEGER NOT NULL DEFAULT 0,
    ai                   INTEGER NOT NULL DEFAULT 0,
    invite_links         INTEGER NOT NULL DEFAULT 1,
    plan                 TEXT NOT NULL DEFAULT 'free_2024'
);

-- One row per (organization, e-mail domain) so the domain lookup is indexed.
CREATE TABLE organization_email_domains (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    domain          TEXT NOT NULL,
    PRIMARY KEY (organization_id, domain)
);
CREATE INDEX organization_email_domains_domain ON organization_email_domains (domain);

CREATE TABLE members (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role            TEXT,                        -- NULL: guest
    disabled        INTEGER NOT NULL DEFAULT 0,
    sso             INTEGER NOT NULL DEFAULT 0,
    joined_at       INTEGER NOT NULL,
    last_seen_at    INTEGER,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX members_by_user ON members (user_id, joined_at);
CREATE INDEX members_by_joined ON members (organization_id, joined_at, user_id);
CREATE INDEX members_by_seen ON members (organization_id, last_seen_at, user_id);

CREATE TABLE teams (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    title           TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX teams_by_org ON teams (organization_id, created_at, id);

CREATE TABLE team_members (
    team_id         TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    organization_id TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    role            TEXT NOT NULL,               -- owner | member
    added_at        INTEGER NOT NULL,
    PRIMARY KEY (team_id, user_id),
    -- leaving the organization leaves its teams
    FOREIGN KEY (organization_id, user_id) REFERENCES members(organization_id, user_id) ON DELETE CASCADE
);
CREATE INDEX team_members_by_user ON team_members (organization_id, user_id);
CREATE INDEX team_members_by_team ON team_members (team_id, added_at, user_id);

CREATE TABLE link_invites (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    role            TEXT,                        -- role granted on joining (NULL: guest)
    target_kind     TEXT NOT NULL,               -- organization | space | collection
    target_id       TEXT,
    created_by      TEXT NOT NULL REFERENCES users(id),
    created_at      INTEGER NOT NULL
);
CREATE INDEX link_invites_by_org ON link_invites (organization_id, created_at, id);

-- Keys the server signs with (visitor-claims JWTs). Generated on first use.
CREATE TABLE signing_keys (
    id          TEXT PRIMARY KEY,
    algorithm   TEXT NOT NULL,
    private_key BLOB NOT NULL,
    public_key  BLOB NOT NULL,
    created_at  INTEGER NOT NULL
);
