-- GraphQL documents registered ahead by `docsapi admin
-- persisted-queries add`, by the hex SHA-256 of their text (the hash
-- Apollo's persisted-query link sends), so that every replica on the
-- database serves them, beside the --graphql-persisted-queries file.
CREATE TABLE graphql_persisted_queries (
    hash       TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
