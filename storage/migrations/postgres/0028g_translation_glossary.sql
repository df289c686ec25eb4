-- An organization's translations glossary: each entry maps language codes
-- to the term used in that language (JSON object); translation runs use it
-- to translate a source term as the entry's term in the target language.
CREATE TABLE glossary_entries (
    id              TEXT COLLATE "C" PRIMARY KEY,
    organization_id TEXT COLLATE "C" NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    translations    TEXT NOT NULL,
    -- ord keeps the order of insertion, within a batch too: created_at
    -- (milliseconds) * 1000 + the operation's index in its batch.
    ord             BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX glossary_entries_by_org ON glossary_entries (organization_id, ord, id);

-- The fingerprint of the glossary terms (source -> target language) the
-- latest successful run of a translation applied ('' for none): a run whose
-- glossary differs translates every page again.
ALTER TABLE translations ADD COLUMN glossary_hash TEXT NOT NULL DEFAULT '';
