package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// NewID returns an opaque random identifier: 20 characters of base32
// (100 bits), lower case so that it is safe in paths and hostnames.
func NewID() string {
	b := make([]byte, 13)
	rand.Read(b)
	return strings.ToLower(strings.TrimRight(b32.EncodeToString(b), "="))[:20]
}

// Cursor marks the last row of a page in a keyset-ordered list: the value of
// the sort column (N for numbers, S for text) and the row's id as tiebreak.
type Cursor struct {
	N  int64  `json:"n,omitempty"`
	S  string `json:"s,omitempty"`
	ID string `json:"i"`
}

// ErrBadCursor is returned for a page token this service did not issue.
var ErrBadCursor = errors.New("storage: malformed page cursor")

// Encode makes the opaque `page` token handed to clients.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a `page` token; the empty string means the first page.
func DecodeCursor(s string) (*Cursor, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil || c.ID == "" {
		return nil, ErrBadCursor
	}
	return &c, nil
}

// PageQuery asks for one page: after the cursor (nil for the first), at most
// Limit rows.
type PageQuery struct {
	After *Cursor
	Limit int
}

// Page is one page of a list: its rows, the cursor of the next page (nil on
// the last page) and the total number of rows of the filtered list.
type Page[T any] struct {
	Items []T
	Next  *Cursor
	Count int
}

// listSpec describes a keyset-paginated list. From must contain a WHERE
// clause; the keyset condition is appended to it with AND.
type listSpec struct {
	Select  string // columns, without SELECT
	From    string // FROM ... WHERE ...
	Args    []any
	// CountFrom and CountArgs, when set, count the same rows more cheaply
	// (without joins that cannot change the total, such as a join along a
	// NOT NULL foreign key); the page still uses From.
	CountFrom string
	CountArgs []any
	SortCol string // column holding the sort key
	IDCol   string // unique tiebreak column
	Desc    bool
	Text    bool // the sort key is text (Cursor.S) rather than a number (Cursor.N)
}

// runList reads one page and the list's total in one read snapshot. scan
// reads one row and returns the item and the cursor that points at it.
func runList[T any](ctx context.Context, db *DB, spec listSpec, pq PageQuery, scan func(*sql.Rows) (T, Cursor, error)) (Page[T], error) {
	var page Page[T]
	cmp, dir := ">", "ASC"
	if spec.Desc {
		cmp, dir = "<", "DESC"
	}
	q := "SELECT " + spec.Select + " " + spec.From
	args := append([]any{}, spec.Args...)
	if pq.After != nil {
		q += " AND (" + spec.SortCol + ", " + spec.IDCol + ") " + cmp + " (?, ?)"
		if spec.Text {
			args = append(args, pq.After.S, pq.After.ID)
		} else {
			args = append(args, pq.After.N, pq.After.ID)
		}
	}
	q += " ORDER BY " + spec.SortCol + " " + dir + ", " + spec.IDCol + " " + dir + " LIMIT ?"
	args = append(args, pq.Limit+1)

	countFrom, countArgs := spec.From, spec.Args
	if spec.CountFrom != "" {
		countFrom, countArgs = spec.CountFrom, spec.CountArgs
	}
	err := db.ReadTx(ctx, func(tx queryer) error {
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) "+countFrom, countArgs...).Scan(&page.Count); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var last Cursor
		for rows.Next() {
			item, cur, err := scan(rows)
			if err != nil {
				return err
			}
			if len(page.Items) == pq.Limit {
				page.Next = &last
				break
			}
			page.Items = append(page.Items, item)
			last = cur
		}
		return rows.Err()
	})
	return page, err
}
