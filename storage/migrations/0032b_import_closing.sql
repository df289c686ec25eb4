-- A batched import on the main line also writes ahead the rows
-- of the pages it changes that the space already has: their new rows at
-- ahead_seq (like new pages) and their old rows closed at ahead_seq
-- (to_seq = ahead_seq: readers of every revision up to the space's last
-- seq still read them, through the closed range). Those old rows are no
-- longer "alive" for the space's writers, so from the first such write
-- until the stage is published or dropped (a drop opens them again) the
-- stage is marked closing and the space's main-line writes wait for it
-- (storage/import_batch.go, awaitImportClosing); other spaces' writes run.
ALTER TABLE import_stages ADD COLUMN closing INTEGER NOT NULL DEFAULT 0;
CREATE INDEX import_stages_closing ON import_stages (space_id, closing);
-- An import into a change request writes its revision's overlay rows
-- ahead, in the batches, under a revision row of type 'staged' that no
-- list, lookup or duplicate reads; the publishing write gives it its type
-- (and the change request its head). revision_id names it, for a drop.
ALTER TABLE import_stages ADD COLUMN revision_id TEXT NOT NULL DEFAULT '';
