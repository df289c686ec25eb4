-- Registered GraphQL documents (see the SQLite migration).
CREATE TABLE graphql_persisted_queries (
    hash       TEXT COLLATE "C" PRIMARY KEY,
    name       TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
