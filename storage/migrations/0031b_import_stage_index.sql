-- A batched import indexes its new pages in its batches, not in
-- its publishing write. Their doc numbers are reserved here, [doc_from,
-- doc_to), in search chunks past the space's next_doc (with a margin), so
-- readers, who read only the chunks below next_doc, never see them until
-- the publishing write moves next_doc past them (storage/import_batch.go).
-- A stage dropped before publishing takes its docs out of those chunks.
--
-- Its new pages' main-line rows go straight into main_pages, from_seq
-- ahead_seq (far past the space's last seq, so no revision readers see
-- reaches it), and the publishing write gives the revision that seq. One
-- stage per space at a time writes rows ahead (0: none, or dropped).
ALTER TABLE import_stages ADD COLUMN doc_from INTEGER NOT NULL DEFAULT 0;
ALTER TABLE import_stages ADD COLUMN doc_to INTEGER NOT NULL DEFAULT 0;
ALTER TABLE import_stages ADD COLUMN ahead_seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX import_stages_space ON import_stages (space_id, doc_to);
