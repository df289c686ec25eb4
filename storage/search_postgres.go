package storage

// PostgreSQL's full-text engine: search_docs itself holds each section's
// title and body and a stored tsvector of both (title weight A, body
// weight B, the 'simple' configuration: lower-cased words, no stemming and
// no stop words, as FTS5's unicode61), indexed with GIN.

import (
	"context"
	"database/sql"
	"strings"
)

type tsvectorSearch struct{}

// query is a to_tsquery text: every word must match, the last one as a
// prefix. Words are letters and digits only (searchWords), so none is an
// operator.
func (tsvectorSearch) query(words []string) string {
	return strings.Join(words, " & ") + ":*"
}

func (tsvectorSearch) add(tx *Tx, spaceID, pageID string, ordinal int, s SearchSection) error {
	_, err := tx.exec(`INSERT INTO search_docs (space_id, page_id, section_id, ordinal, title, body) VALUES (?, ?, ?, ?, ?, ?)`,
		spaceID, pageID, s.ID, ordinal, s.Title, s.Body)
	return err
}

func (tsvectorSearch) dropPage(tx *Tx, spaceID, pageID string) error {
	_, err := tx.exec(`DELETE FROM search_docs WHERE space_id = ? AND page_id = ?`, spaceID, pageID)
	return err
}

func (tsvectorSearch) dropSpace(tx *Tx, spaceID string) error {
	_, err := tx.exec(`DELETE FROM search_docs WHERE space_id = ?`, spaceID)
	return err
}

func (tsvectorSearch) copySpace(tx *Tx, fromSpace, toSpace string) error {
	_, err := tx.exec(`INSERT INTO search_docs (space_id, page_id, section_id, ordinal, title, body)
 SELECT ?, page_id, section_id, ordinal, title, body FROM search_docs WHERE space_id = ? ORDER BY rowid`, toSpace, fromSpace)
	return err
}

// rank scores a match, lower is better as with bm25: ts_rank with a title
// (A) word weighing five times a body (B) one ({D, C, B, A} weights).
const tsRank = `-ts_rank('{0.1, 0.2, 0.2, 1.0}', d.doc, to_tsquery('simple', ?))`

func (tsvectorSearch) matches(cols, q string, spaces []string) (string, []any) {
	return `SELECT ` + cols + `, ` + tsRank + ` AS score FROM search_docs d
 WHERE d.doc @@ to_tsquery('simple', ?) AND d.space_id IN (` + placeholders(len(spaces)) + `)`, append([]any{q, q}, anySlice(spaces)...)
}

// sections: ts_headline only for the listed rows, about 24 words around
// the best match as FTS5's snippet.
func (tsvectorSearch) sections(ctx context.Context, tx queryer, q string, rowids []int64) (*sql.Rows, error) {
	return tx.QueryContext(ctx, `SELECT d.rowid, d.title,
 ts_headline('simple', d.body, to_tsquery('simple', ?), 'StartSel="", StopSel="", MaxWords=24, MinWords=12, ShortWord=0, MaxFragments=1, FragmentDelimiter=" … "'),
 `+tsRank+` FROM search_docs d WHERE d.rowid = ANY(?) AND d.doc @@ to_tsquery('simple', ?)`, q, q, rowids, q)
}

func (tsvectorSearch) sectionsOf(ctx context.Context, q queryer) (*sql.Rows, error) {
	return q.QueryContext(ctx, `SELECT space_id, page_id, section_id, ordinal, title, body FROM search_docs ORDER BY rowid`)
}
