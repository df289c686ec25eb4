-- Share links that expire and share links behind a password.
-- expires_at: Unix milliseconds, NULL for a link that never expires; the
-- check is made on the server's clock when a key is used, so nothing has to
-- sweep expired links. password_hash: a bcrypt hash, NULL without a password.
ALTER TABLE site_share_links ADD COLUMN expires_at INTEGER;
ALTER TABLE site_share_links ADD COLUMN password_hash TEXT;
