package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"sync"
	"time"
)

// AuditEntry is one row of an organization's audit log: a change one of its
// members made through the API, who made it and from where.
type AuditEntry struct {
	ID             string
	OrganizationID string
	Action         string
	TargetType     string
	TargetID       string
	Actor          Actor
	CreatedAt      time.Time
	Fields         map[string]any
}

// Redacted is what the audit log says of a secret field that changed.
const Redacted = "(changed)"

// secretField tells whether a field name names a secret (a password, a
// token or webhook secret, a private key): the log names it, never copies
// it. Resolvers already say Redacted for these; this is the safety net.
func secretField(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "password") || strings.Contains(n, "secret") || strings.Contains(n, "privatekey") ||
		n == "token" || strings.HasSuffix(n, "tokenhash")
}

// auditCols are the columns of audit_log and audit_recent (migrations 0015,
// 0021), in the audit sink's order.
const auditCols = `organization_id, id, action, target_type, target_id, actor_user_id, actor_token_id, address, request_id, created_at, fields`

// auditSink writes a recorded change to the audit log, inside the write
// transaction that makes it (changes.go). The id is a timed id of the
// transaction's clock reading, so ids and created_at agree.
func auditSink(tx *Tx, a Actor, c Change) error {
	fields := "{}"
	if len(c.Fields) > 0 {
		clean := c.Fields
		for k := range c.Fields {
			if secretField(k) && c.Fields[k] != Redacted {
				clean = redacted(c.Fields)
				break
			}
		}
		b, err := json.Marshal(clean)
		if err != nil {
			return err
		}
		fields = string(b)
	}
	id := tx.db.auditIDs.next(ms(tx.Now))
	tx.auditID = id
	// created_at is the id's own time (the transaction's clock reading,
	// unless the clock went back and the id had to follow the last one), so
	// a time range read as an id range is exact.
	// Into audit_recent: one b-tree (its key) where audit_log would write
	// four (its key and three filter indexes), each a WAL frame of this
	// commit; MoveRecentAudit moves the entry into audit_log later.
	// Nothing reads its result: it goes out with the next statement or the
	// COMMIT (execLater).
	return tx.execLater(`INSERT INTO audit_recent (`+auditCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.OrganizationID, id, c.Action, c.TargetType, c.TargetID, a.UserID, a.TokenID, a.Address, a.RequestID, timedIDMillis(id), fields)
}

// maxTimedMillis bounds the milliseconds a timed id's ten characters hold.
const maxTimedMillis = 1<<50 - 1

// timedIDMillis is the time (Unix milliseconds) in a timed id's first ten
// characters.
func timedIDMillis(id string) int64 {
	var t int64
	for i := 0; i < 10 && i < len(id); i++ {
		t = t<<5 | int64(strings.IndexByte(idAlphabet, id[i])&31)
	}
	return t
}

// timedIDFloor is the smallest timed id made at ms or later (ms clamped to
// the ids' range): the ten characters of its time alone, which sort before
// every id that starts with them.
func timedIDFloor(ms int64) string {
	ms = min(max(ms, 0), maxTimedMillis)
	return timedID(ms)[:10]
}

// auditIDs makes audit entry ids that increase within the process even
// inside one millisecond (a timed id's random half would order entries of
// the same millisecond at random): newest first is the order they were
// written in. Writes are serialized already; the mutex keeps it obvious.
type auditIDs struct {
	mu   sync.Mutex
	last string
}

func (a *auditIDs) next(ms int64) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := timedID(ms)
	if id <= a.last {
		id = idAfter(a.last)
	}
	a.last = id
	return id
}

// idAfter is the id following id in idAlphabet order (its last character
// incremented, with carry).
func idAfter(id string) string {
	b := []byte(id)
	for i := len(b) - 1; i >= 0; i-- {
		k := strings.IndexByte(idAlphabet, b[i])
		if k < len(idAlphabet)-1 {
			b[i] = idAlphabet[k+1]
			return string(b)
		}
		b[i] = idAlphabet[0]
	}
	return id + idAlphabet[:1] // every character was the last one: longer sorts later
}

// redacted is a copy of fields with every secret field's value Redacted
// (the caller's map is left alone).
func redacted(fields map[string]any) map[string]any {
	clean := make(map[string]any, len(fields))
	for k, v := range fields {
		if secretField(k) {
			v = Redacted
		}
		clean[k] = v
	}
	return clean
}

// AuditFilter narrows an organization's audit log; zero fields do not
// filter. Action is an exact action, or with ActionPrefix every action that
// starts with it ("space." for every space action).
type AuditFilter struct {
	ActorID      string
	Action       string
	ActionPrefix bool
	TargetType   string
	TargetID     string
	From, To     *time.Time // inclusive bounds on CreatedAt
}

// ListAudit pages through an organization's audit log, newest first.
//
// The entries are in two tables, audit_log and audit_recent (the entries
// not moved yet, MoveRecentAudit), disjoint at every moment, so the list
// is their UNION ALL with the filters inside each arm: SQLite flattens it
// into a merge of the two ordered index reads (PostgreSQL: a Merge Append),
// and the keyset condition runList adds on a.id is pushed into both, so a
// page still reads about limit entries. The count is one statement over
// both tables, so its cached value (countCache) cannot mix two moments.
func (db *DB) ListAudit(ctx context.Context, orgID string, f AuditFilter, pq PageQuery) (Page[AuditEntry], error) {
	cond := `organization_id = ?`
	args := []any{orgID}
	if f.ActorID != "" {
		cond += ` AND actor_user_id = ?`
		args = append(args, f.ActorID)
	}
	switch {
	case f.Action != "" && f.ActionPrefix:
		// A range rather than LIKE: the action index serves it on both
		// backends (byte order), and '_' or '%' in the prefix mean nothing.
		cond += ` AND action >= ? AND action < ?`
		args = append(args, f.Action, prefixEnd(f.Action))
	case f.Action != "":
		cond += ` AND action = ?`
		args = append(args, f.Action)
	}
	if f.TargetType != "" {
		cond += ` AND target_type = ?`
		args = append(args, f.TargetType)
	}
	if f.TargetID != "" {
		cond += ` AND target_id = ?`
		args = append(args, f.TargetID)
	}
	// The time range as an id range (ids start with their created_at): the
	// primary key or a filter's index, all ending in id, serve it.
	if f.From != nil {
		cond += ` AND id >= ?`
		args = append(args, timedIDFloor(ms(*f.From)))
	}
	if f.To != nil {
		cond += ` AND id < ?`
		args = append(args, timedIDFloor(ms(*f.To)+1))
	}
	both := append(append([]any{}, args...), args...)
	from := `FROM (SELECT ` + auditCols + ` FROM audit_log WHERE ` + cond +
		` UNION ALL SELECT ` + auditCols + ` FROM audit_recent WHERE ` + cond + `) a WHERE 1 = 1`
	spec := listSpec{Select: `a.id, a.organization_id, a.action, a.target_type, a.target_id, a.actor_user_id, a.actor_token_id, a.address, a.request_id, a.created_at, a.fields`,
		From: from, Args: both, IDCol: "a.id", Desc: true,
		CountParts: []countPart{{Query: `SELECT (SELECT COUNT(*) FROM audit_log WHERE ` + cond + `) + (SELECT COUNT(*) FROM audit_recent WHERE ` + cond + `)`, Args: both}}}
	return runList(ctx, db, spec, pq, func(rows *sql.Rows) (AuditEntry, Cursor, error) {
		var e AuditEntry
		var at int64
		var fields string
		err := rows.Scan(&e.ID, &e.OrganizationID, &e.Action, &e.TargetType, &e.TargetID, &e.Actor.UserID, &e.Actor.TokenID,
			&e.Actor.Address, &e.Actor.RequestID, &at, &fields)
		if err != nil {
			return e, Cursor{}, err
		}
		e.CreatedAt = FromMillis(at)
		if err := json.Unmarshal([]byte(fields), &e.Fields); err != nil {
			return e, Cursor{}, err
		}
		return e, Cursor{ID: e.ID}, nil
	})
}

// prefixEnd is the smallest string above every string starting with p (p
// is not empty): p with its last byte incremented, trailing 0xff dropped.
func prefixEnd(p string) string {
	b := []byte(p)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "\xff\xff\xff\xff" // above any valid UTF-8 text
	}
	b[len(b)-1]++
	return string(b)
}

// AuditOrganizationsWithExpired walks the organizations that have audit
// entries (those of deleted organizations too), in id order, for the
// retention purge: of the (at most limit) organizations after the id after,
// it returns those holding an entry made before `before`, and the last id
// walked ("" once the walk is over). One read per page: each step of the
// walk and each check is one probe of the primary key (organization_id, id)
// of audit_log and of audit_recent (entries not moved yet).
func (db *DB) AuditOrganizationsWithExpired(ctx context.Context, after string, before time.Time, limit int) (ids []string, last string, err error) {
	rows, err := db.r().QueryContext(ctx, `WITH RECURSIVE walk (org, n) AS (
 SELECT (SELECT MIN(o) FROM (SELECT MIN(organization_id) AS o FROM audit_log WHERE organization_id > ?
   UNION ALL SELECT MIN(organization_id) FROM audit_recent WHERE organization_id > ?) f), 1
 UNION ALL
 SELECT (SELECT MIN(o) FROM (SELECT MIN(l.organization_id) AS o FROM audit_log l WHERE l.organization_id > walk.org
   UNION ALL SELECT MIN(r.organization_id) FROM audit_recent r WHERE r.organization_id > walk.org) f), walk.n + 1
 FROM walk WHERE walk.org IS NOT NULL AND walk.n < ?)
SELECT walk.org, CASE WHEN EXISTS (SELECT 1 FROM audit_log e WHERE e.organization_id = walk.org AND e.id < ?)
   OR EXISTS (SELECT 1 FROM audit_recent e WHERE e.organization_id = walk.org AND e.id < ?) THEN 1 ELSE 0 END
 FROM walk WHERE walk.org IS NOT NULL ORDER BY walk.n`, after, after, limit, timedIDFloor(ms(before)), timedIDFloor(ms(before)))
	return walkedIDs(rows, err)
}

// PurgeAudit deletes at most limit of an organization's audit entries made
// before `before`, oldest first (an id range of the primary key of
// audit_log, then of audit_recent, whose entries are the newest), in one
// transaction, and says how many.
func (db *DB) PurgeAudit(ctx context.Context, orgID string, before time.Time, limit int) (int, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		n = 0
		for _, table := range []string{"audit_log", "audit_recent"} {
			res, err := tx.exec(`DELETE FROM `+table+` WHERE organization_id = ? AND id IN (
 SELECT id FROM `+table+` WHERE organization_id = ? AND id < ? ORDER BY id LIMIT ?)`, orgID, orgID, timedIDFloor(ms(before)), limit-int(n))
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if n += k; int(n) == limit {
				break
			}
		}
		return nil
	})
	return int(n), err
}

// MoveRecentAudit moves at most limit entries from audit_recent into
// audit_log, in one write transaction, and says how many it moved. The
// entries are copied and deleted in the same transaction (on SQLite under
// the write lock, both statements pick the same first rows of the key), so a crash
// leaves each entry in exactly one table, a list reads it at every moment,
// and a second mover (another replica) finds only what is left; an entry
// already in audit_log is not copied twice (ON CONFLICT DO NOTHING). The
// change counter stays still on SQLite: no read changes (the list reads
// both tables, its count is one statement over both).
//
// On PostgreSQL the move is one statement (a DELETE … RETURNING feeding
// the INSERT: one snapshot, exactly the deleted entries copied) in a
// write scope of its own, so it no longer stops every organization's
// writes while it runs (dialect moveAudit, auditMoverScope).
func (db *DB) MoveRecentAudit(ctx context.Context, limit int) (int, error) {
	var n int64
	err := db.writeScoped(ctx, db.dialect.auditMoverScope(), false, func(tx *Tx) error {
		var err error
		n, err = db.dialect.moveAudit(tx, limit)
		return err
	})
	return int(n), err
}

// RecentAuditEntries is how many entries wait in audit_recent to be moved
// (the queue depth metrics expose; a count of a table the mover keeps small).
func (db *DB) RecentAuditEntries(ctx context.Context) (int, error) {
	var n int
	err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_recent`).Scan(&n)
	return n, err
}

// walkedIDs reads the (id, expired 0/1) rows of a retention walk
// (AuditOrganizationsWithExpired, WebhooksWithExpiredDeliveries): the ids
// with something expired, and the last id walked.
func walkedIDs(rows *sql.Rows, err error) (ids []string, last string, _ error) {
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var expired int
		if err := rows.Scan(&last, &expired); err != nil {
			return nil, "", err
		}
		if expired == 1 {
			ids = append(ids, last)
		}
	}
	return ids, last, rows.Err()
}
