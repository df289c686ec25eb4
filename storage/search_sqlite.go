package storage

// SQLite's full-text engine: an FTS5 table (search_sections, ranked with
// bm25) beside search_docs, which holds each row's space, page and section
// under the same rowid.

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
)

type fts5 struct{}

// query turns the words into an FTS5 query: every word must match (the
// last one as a prefix); operators typed by the user are taken as plain
// words.
func (fts5) query(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = `"` + w + `"`
		if i == len(words)-1 {
			out[i] += "*"
		}
	}
	return strings.Join(out, " ")
}

func (fts5) add(tx *Tx, spaceID, pageID string, ordinal int, s SearchSection) error {
	res, err := tx.exec(`INSERT INTO search_docs (space_id, page_id, section_id, ordinal) VALUES (?, ?, ?, ?)`, spaceID, pageID, s.ID, ordinal)
	if err != nil {
		return err
	}
	rowid, _ := res.LastInsertId()
	_, err = tx.exec(`INSERT INTO search_sections (rowid, title, body) VALUES (?, ?, ?)`, rowid, s.Title, s.Body)
	return err
}

func (fts5) dropPage(tx *Tx, spaceID, pageID string) error {
	if _, err := tx.exec(`DELETE FROM search_sections WHERE rowid IN (SELECT rowid FROM search_docs WHERE space_id = ? AND page_id = ?)`, spaceID, pageID); err != nil {
		return err
	}
	_, err := tx.exec(`DELETE FROM search_docs WHERE space_id = ? AND page_id = ?`, spaceID, pageID)
	return err
}

func (fts5) dropSpace(tx *Tx, spaceID string) error {
	if _, err := tx.exec(`DELETE FROM search_sections WHERE rowid IN (SELECT rowid FROM search_docs WHERE space_id = ?)`, spaceID); err != nil {
		return err
	}
	_, err := tx.exec(`DELETE FROM search_docs WHERE space_id = ?`, spaceID)
	return err
}

func (e fts5) copySpace(tx *Tx, fromSpace, toSpace string) error {
	rows, err := tx.QueryContext(tx.ctx, `SELECT d.page_id, d.section_id, d.ordinal, s.title, s.body FROM search_docs d JOIN search_sections s ON s.rowid = d.rowid WHERE d.space_id = ?`, fromSpace)
	if err != nil {
		return err
	}
	type row struct {
		page    string
		ordinal int
		s       SearchSection
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.page, &r.s.ID, &r.ordinal, &r.s.Title, &r.s.Body); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range all {
		if err := e.add(tx, toSpace, r.page, r.ordinal, r.s); err != nil {
			return err
		}
	}
	return nil
}

// bm25 ranks a match (lower is better); a match in a section title weighs
// five times one in its body.
const bm25 = `bm25(search_sections, 5.0, 1.0)`

// matches is the matching rows of the given spaces with cols (of d, the
// search_docs row) and their score. Only what the ranking needs is read:
// each further column (a title from the FTS content, an excerpt) costs a
// read per matching section, and a broad query matches all of them.
func (fts5) matches(cols, q string, spaces []string) (string, []any) {
	return `SELECT ` + cols + `, ` + bm25 + ` AS score
 FROM search_sections JOIN search_docs d ON d.rowid = search_sections.rowid
 WHERE search_sections MATCH ? AND d.space_id IN (` + placeholders(len(spaces)) + `)`, append([]any{q}, anySlice(spaces)...)
}

// sections is, of the given search_docs rows, those matching q: rowid,
// title, excerpt and score.
func (fts5) sections(ctx context.Context, tx queryer, q string, rowids []int64) (*sql.Rows, error) {
	ids, _ := json.Marshal(rowids)
	// +rowid: a filter on the matches, not a rowid lookup per listed row
	// (each would scan the query's whole doclist again).
	return tx.QueryContext(ctx, `SELECT rowid, title, snippet(search_sections, 1, '', '', '…', 24), `+bm25+` FROM search_sections
 WHERE search_sections MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`, q, string(ids))
}

func (fts5) sectionsOf(ctx context.Context, q queryer) (*sql.Rows, error) {
	return q.QueryContext(ctx, `SELECT d.space_id, d.page_id, d.section_id, d.ordinal, s.title, s.body
 FROM search_docs d JOIN search_sections s ON s.rowid = d.rowid ORDER BY d.rowid`)
}
