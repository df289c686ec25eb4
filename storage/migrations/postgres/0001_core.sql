-- Users, API tokens, organizations, members, teams, invites and server keys.
-- Timestamps are Unix milliseconds; booleans are 0/1; lists are JSON text.

CREATE TABLE users (
    id           TEXT COLLATE "C" PRIMARY KEY,
    email        TEXT COLLATE "C" NOT NULL UNIQUE,          -- stored lower case
    display_name TEXT COLLATE "C" NOT NULL,
    photo_url    TEXT COLLATE "C",
    signed_in    BIGINT NOT NULL DEFAULT 0,    -- 0: invited by e-mail, never signed in
    created_at   BIGINT NOT NULL
);

CREATE TABLE tokens (
    id              TEXT COLLATE "C" PRIMARY KEY,
    user_id         TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    hash            TEXT COLLATE "C" NOT NULL UNIQUE,       -- SHA-256 of the secret, hex
    kind            TEXT COLLATE "C" NOT NULL,              -- api | session | installation
    organization_id TEXT COLLATE "C",                       -- set for tokens scoped to one organization
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT
);

CREATE TABLE organizations (
    id                   TEXT COLLATE "C" PRIMARY KEY,
    title                TEXT COLLATE "C" NOT NULL,
    created_at           BIGINT NOT NULL,
    email_domains        TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    hostname             TEXT COLLATE "C" UNIQUE,
    type                 TEXT COLLATE "C" NOT NULL DEFAULT 'business',
    use_case             TEXT COLLATE "C",
    community_type       TEXT COLLATE "C",
    default_role         TEXT COLLATE "C",
    default_content_site TEXT COLLATE "C",
    logo                 TEXT COLLATE "C",
    sso                  BIGINT NOT NULL DEFAULT 0,
    ai                   BIGINT NOT NULL DEFAULT 0,
    invite_links         BIGINT NOT NULL DEFAULT 1,
    plan                 TEXT COLLATE "C" NOT NULL DEFAULT 'free_2024'
);

-- One row per (organization, e-mail domain) so the domain lookup is indexed.
CREATE TABLE organization_email_domains (
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    domain          TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (organization_id, domain)
);
CREATE INDEX organization_email_domains_domain ON organization_email_domains (domain);

CREATE TABLE members (
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id         TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role            TEXT COLLATE "C",                        -- NULL: guest
    disabled        BIGINT NOT NULL DEFAULT 0,
    sso             BIGINT NOT NULL DEFAULT 0,
    joined_at       BIGINT NOT NULL,
    last_seen_at    BIGINT,
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX members_by_user ON members (user_id, joined_at);
CREATE INDEX members_by_joined ON members (organization_id, joined_at, user_id);
CREATE INDEX members_by_seen ON members (organization_id, last_seen_at, user_id);

CREATE TABLE teams (
    id              TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    title           TEXT COLLATE "C" NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX teams_by_org ON teams (organization_id, created_at, id);

CREATE TABLE team_members (
    team_id         TEXT COLLATE "C" NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    organization_id TEXT COLLATE "C" NOT NULL,
    user_id         TEXT COLLATE "C" NOT NULL,
    role            TEXT COLLATE "C" NOT NULL,               -- owner | member
    added_at        BIGINT NOT NULL,
    PRIMARY KEY (team_id, user_id),
    -- leaving the organization leaves its teams
    FOREIGN KEY (organization_id, user_id) REFERENCES members(organization_id, user_id) ON DELETE CASCADE
);
CREATE INDEX team_members_by_user ON team_members (organization_id, user_id);
CREATE INDEX team_members_by_team ON team_members (team_id, added_at, user_id);

CREATE TABLE link_invites (
    id              TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    role            TEXT COLLATE "C",                        -- role granted on joining (NULL: guest)
    target_kind     TEXT COLLATE "C" NOT NULL,               -- organization | space | collection
    target_id       TEXT COLLATE "C",
    created_by      TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    created_at      BIGINT NOT NULL
);
CREATE INDEX link_invites_by_org ON link_invites (organization_id, created_at, id);

-- Keys the server signs with (visitor-claims JWTs). Generated on first use.
CREATE TABLE signing_keys (
    id          TEXT COLLATE "C" PRIMARY KEY,
    algorithm   TEXT COLLATE "C" NOT NULL,
    private_key BYTEA NOT NULL,
    public_key  BYTEA NOT NULL,
    created_at  BIGINT NOT NULL
);
