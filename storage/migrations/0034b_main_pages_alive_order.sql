-- PostgreSQL's main_pages_alive gains page_id as its last column, so that a
-- parent's children come in their order (position, page_id) from the index
-- (migrations/postgres/0034b_main_pages_alive_order.sql). SQLite's index
-- already ends with the rowid and SQLite sorts only the ties of position
-- (its plan for the read is unchanged): nothing to change here.
SELECT 1;
