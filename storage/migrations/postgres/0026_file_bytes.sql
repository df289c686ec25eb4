-- A blob's bytes move to their own table, as on SQLite (where a listing of
-- files read every file's bytes to reach the size columns after them;
-- PostgreSQL keeps large values out of line, but the two schemas stay the
-- same). file_blobs keeps what a listing reads; file_bytes is read only to
-- serve a file's content.
CREATE TABLE file_bytes (
    hash  TEXT COLLATE "C" PRIMARY KEY REFERENCES file_blobs(hash) ON DELETE CASCADE,
    bytes BYTEA NOT NULL
);
INSERT INTO file_bytes (hash, bytes) SELECT hash, bytes FROM file_blobs;
ALTER TABLE file_blobs DROP COLUMN bytes;
