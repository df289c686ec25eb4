package storage

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"docsapi/apierr"
)

// UnavailableRetryAfter is the Retry-After (seconds) of the 503 a request
// gets while the database cannot be reached: about the time a restarted
// PostgreSQL takes to accept connections again.
const UnavailableRetryAfter = 5

// Both transports map errors through apierr.As: a cursor of another list
// is a 400 naming `page` (every list's storage checks it); a database that cannot be
// reached is a 503 with Retry-After there (what /readyz says), never a 500:
// the client can act on it, and the service resumes by itself.
func init() {
	apierr.RegisterClassifier(func(err error) *apierr.Error {
		if errors.Is(err, ErrForeignCursor) {
			return apierr.Invalid("page", "is a page cursor of another list")
		}
		if !Unavailable(err) {
			return nil
		}
		return apierr.Unavailable(UnavailableRetryAfter, "the database is unavailable; try again shortly")
	})
}

// Unavailable reports whether err says the database cannot be reached (as
// opposed to refusing a statement): no connection could be made (refused,
// reset, the server starting up or shutting down), a connection broke, or
// the pool is closed (a stopping process).
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	if errors.As(err, new(*pgconn.ConnectError)) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"): // connection exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin or crash shutdown, cannot connect now
			return true
		}
		return false
	}
	// database/sql's closed pool has no exported sentinel; a connection
	// pgx found closed under it says so in its message.
	msg := err.Error()
	return strings.HasSuffix(msg, "sql: database is closed") || strings.HasSuffix(msg, "conn closed")
}
