-- A revision whose files are those of the revision it was made from (most
-- are: a page edit changes pages, not files) writes no revision_files rows:
-- files_of names the revision that holds them, always one whose own
-- files_of is NULL (no chains), in the same space. NULL: the revision's own
-- rows. Readers find a revision's files at COALESCE(files_of, id).
ALTER TABLE revisions ADD COLUMN files_of TEXT;
