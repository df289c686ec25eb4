-- SAML identity providers and the outstanding SAML logins they answer.
-- An unset entity_id, sso_url or certificate is the empty string: a provider
-- is active once all three are set.

CREATE TABLE saml_providers (
    id              TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    label           TEXT COLLATE "C" NOT NULL,
    entity_id       TEXT COLLATE "C" NOT NULL DEFAULT '',   -- the identity provider's entity ID (Issuer)
    sso_url         TEXT COLLATE "C" NOT NULL DEFAULT '',   -- where AuthnRequests are sent
    certificate     TEXT COLLATE "C" NOT NULL DEFAULT '',   -- PEM: one or more signing certificates
    default_team_id TEXT COLLATE "C" REFERENCES teams(id),  -- cleared when the team is deleted (teamRemovalHooks)
    default_role    TEXT COLLATE "C",                       -- role of members provisioned by a login (NULL: guest)
    created_at      BIGINT NOT NULL
);
CREATE INDEX saml_providers_by_org ON saml_providers (organization_id, created_at, id);
CREATE INDEX saml_providers_by_team ON saml_providers (default_team_id);

-- AuthnRequests sent and not yet answered. A response is accepted only for an
-- outstanding request, which the login consumes: a replay finds none.
CREATE TABLE saml_requests (
    id          TEXT COLLATE "C" PRIMARY KEY,               -- the AuthnRequest ID (InResponseTo of the answer)
    provider_id TEXT COLLATE "C" NOT NULL REFERENCES saml_providers(id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX saml_requests_by_provider ON saml_requests (provider_id, expires_at);
CREATE INDEX saml_requests_by_expiry ON saml_requests (expires_at);
