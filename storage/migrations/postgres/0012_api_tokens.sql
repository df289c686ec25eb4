-- Personal API tokens managed through the API (/v1/user/tokens): a label,
-- a read-only flag and the last use (written at most once a minute per
-- token, off the request path). Existing tokens get a label after their kind.
ALTER TABLE tokens ADD COLUMN label TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE tokens ADD COLUMN read_only BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN last_used_at BIGINT;
UPDATE tokens SET label = CASE kind WHEN 'session' THEN 'SAML sign-in' WHEN 'installation' THEN 'Integration installation' ELSE 'API token' END;

-- A user's tokens, newest first (the keyset list).
CREATE INDEX tokens_by_user ON tokens (user_id, created_at, id);

-- The token counter: bumped whenever a token row disappears or changes what
-- it grants, whoever deletes it (a revoke, a user removed, an installation
-- uninstalled, by this process or another one on the same file). The
-- authenticator keeps cached lookups only while it stands still, so a revoked
-- token answers 401 from the next request on in every process. Last-use
-- updates do not bump it.
CREATE TABLE token_changes (id BIGINT PRIMARY KEY, n BIGINT NOT NULL);
INSERT INTO token_changes (id, n) VALUES (1, 0);
CREATE FUNCTION token_changes_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE token_changes SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE TRIGGER tokens_deleted AFTER DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION token_changes_bump();
CREATE TRIGGER tokens_changed AFTER UPDATE OF user_id, hash, kind, organization_id, expires_at, read_only ON tokens
    FOR EACH ROW EXECUTE FUNCTION token_changes_bump();
