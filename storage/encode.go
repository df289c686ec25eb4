package storage

import (
	"database/sql"
	"encoding/base32"
	"encoding/json"
	"time"
)

var b32 = base32.StdEncoding

// Timestamps are stored as Unix milliseconds (portable, sortable, and exact
// for the API's millisecond precision).
func ms(t time.Time) int64 { return t.UnixMilli() }

// FromMillis turns a stored timestamp back into UTC time.
func FromMillis(v int64) time.Time { return time.UnixMilli(v).UTC() }

func nullMillis(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := FromMillis(v.Int64)
	return &t
}

func nullStr(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	s := v.String
	return &s
}

func strOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func timeOrNil(p *time.Time) any {
	if p == nil {
		return nil
	}
	return p.UnixMilli()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// jsonText stores small structured values (string lists, maps) as JSON text.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func fromJSONText[T any](s sql.NullString) T {
	var v T
	if s.Valid && s.String != "" {
		json.Unmarshal([]byte(s.String), &v)
	}
	return v
}
