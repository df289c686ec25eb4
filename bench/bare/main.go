// Command bare is the yardstick docsapi's performance targets are measured
// against: the least a Go service can do for the same three requests with
// the same stack (chi, modernc.org/sqlite) and the same durability (WAL,
// synchronous=FULL, foreign keys). No auth, no logging, no validation.
// Given a postgres:// URL as --db it is the same server on PostgreSQL
// through pgx's database/sql driver, as docsapi reaches it, with the
// server's own durability (synchronous_commit on, as docsapi leaves it):
// a writer pool of 16 connections (PostgreSQL groups concurrent commits'
// WAL flushes itself) and a reader pool of 4.
//
//	GET /items/{id}          a prepared primary-key read
//	GET /items?limit=100     a prepared keyset page (the first one, newest first)
//	PUT /items               an insert in its own transaction
//
// On start it seeds --rows rows when the table is empty and prints one JSON
// line: {"addr":..., "id":<an existing row id>}.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

type item struct {
	ID        string `json:"id"`
	Owner     string `json:"owner"`
	Email     string `json:"email"`
	Name      string `json:"name"`
	Role      string `json:"role"`
	CreatedAt string `json:"createdAt"`
}

type page struct {
	Next  *string `json:"next,omitempty"`
	Items []item  `json:"items"`
}

const cols = `id, owner, email, name, role, created_at`

const owner = "bench"

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	dbPath := flag.String("db", "./bare.db", "SQLite file, or a postgres:// URL")
	rows := flag.Int("rows", 10000, "rows to seed when the table is empty")
	extra := flag.Int("extra-pages", 0, "measuring only: k more indexes on items, so that every insert dirties k more b-tree pages (WAL frames) with no more statements; a fresh --db per value")
	checkpoint := flag.Int("wal-autocheckpoint", 0, "measuring only: the writer's wal_autocheckpoint in pages (0: SQLite's default, 1000; docsapi's is 8000)")
	flag.Parse()
	if err := run(*addr, *dbPath, *rows, *extra, *checkpoint); err != nil {
		log.Fatal(err)
	}
}

func open(path string, conns int, txlock string) (*sql.DB, error) {
	v := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "foreign_keys(1)", "busy_timeout(10000)", "synchronous(FULL)"} {
		v.Add("_pragma", p)
	}
	dsn := "file:" + path + "?" + v.Encode() + txlock
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return db, nil
}

func newID() string {
	b := make([]byte, 10)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// isPostgres tells a postgres:// URL from a SQLite path.
func isPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// openPostgres opens the writer and reader pools on a PostgreSQL URL.
func openPostgres(target string) (w, r *sql.DB, err error) {
	if w, err = sql.Open("pgx", target); err != nil {
		return nil, nil, err
	}
	w.SetMaxOpenConns(16)
	w.SetMaxIdleConns(16)
	if r, err = sql.Open("pgx", target); err != nil {
		w.Close()
		return nil, nil, err
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	return w, r, nil
}

// dollars numbers the ? placeholders of q ($1, $2, ...) for PostgreSQL.
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func run(addr, path string, n, extra, checkpoint int) error {
	pg := isPostgres(path)
	q := func(s string) string { return s }
	var w, r *sql.DB
	var err error
	if pg {
		q = dollars
		if w, r, err = openPostgres(path); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		// Same pool layout as docsapi: one writer connection, a reader pool.
		if w, err = open(path, 1, "&_txlock=immediate"); err != nil {
			return err
		}
		if r, err = open(path, 4, ""); err != nil {
			w.Close()
			return err
		}
	}
	defer w.Close()
	defer r.Close()
	ctx := context.Background()
	schema := []string{`CREATE TABLE IF NOT EXISTS items (
 id TEXT PRIMARY KEY, owner TEXT NOT NULL, email TEXT NOT NULL, name TEXT NOT NULL, role TEXT, created_at INTEGER NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS items_by_owner ON items (owner, created_at, id)`}
	if pg {
		// BIGINT: PostgreSQL's INTEGER is 32 bits; C: byte order, as docsapi's columns.
		schema[0] = `CREATE TABLE IF NOT EXISTS items (
 id TEXT COLLATE "C" PRIMARY KEY, owner TEXT COLLATE "C" NOT NULL, email TEXT NOT NULL, name TEXT NOT NULL, role TEXT, created_at BIGINT NOT NULL)`
	}
	for _, ddl := range schema {
		if _, err := w.ExecContext(ctx, ddl); err != nil {
			return err
		}
	}
	if pg && (extra > 0 || checkpoint > 0) {
		return fmt.Errorf("--extra-pages and --wal-autocheckpoint measure SQLite only")
	}
	if checkpoint > 0 {
		if _, err := w.ExecContext(ctx, fmt.Sprintf(`PRAGMA wal_autocheckpoint = %d`, checkpoint)); err != nil {
			return err
		}
	}
	// --extra-pages: the cost of a WAL frame. Each extra index is its own
	// b-tree whose entries append (created_at increases), so an insert
	// dirties exactly one more leaf per index, like docsapi's indexes.
	for i := 0; i < extra; i++ {
		if _, err := w.ExecContext(ctx, fmt.Sprintf(`CREATE INDEX IF NOT EXISTS items_extra_%d ON items (created_at, id)`, i)); err != nil {
			return err
		}
	}
	var sample string
	if err := w.QueryRowContext(ctx, `SELECT id FROM items LIMIT 1`).Scan(&sample); err == sql.ErrNoRows {
		if sample, err = seed(ctx, w, n, q); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}

	byID, err := r.PrepareContext(ctx, q(`SELECT `+cols+` FROM items WHERE id = ?`))
	if err != nil {
		return err
	}
	first, err := r.PrepareContext(ctx, q(`SELECT `+cols+` FROM items WHERE owner = ? ORDER BY created_at DESC, id DESC LIMIT ?`))
	if err != nil {
		return err
	}
	after, err := r.PrepareContext(ctx, q(`SELECT `+cols+` FROM items WHERE owner = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`))
	if err != nil {
		return err
	}

	insert := q(`INSERT INTO items (` + cols + `) VALUES (?, ?, ?, ?, ?, ?)`)
	mux := chi.NewRouter()
	mux.Get("/items/{id}", func(rw http.ResponseWriter, req *http.Request) {
		it, err := scan(byID.QueryRowContext(req.Context(), chi.URLParam(req, "id")))
		if err == sql.ErrNoRows {
			http.Error(rw, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(rw, http.StatusOK, it)
	})
	mux.Get("/items", func(rw http.ResponseWriter, req *http.Request) {
		limit, _ := strconv.Atoi(req.URL.Query().Get("limit"))
		if limit <= 0 || limit > 1000 {
			limit = 50
		}
		var rows *sql.Rows
		var err error
		if c := req.URL.Query().Get("page"); c != "" {
			ms, id, _ := decodeCursor(c)
			rows, err = after.QueryContext(req.Context(), owner, ms, id, limit+1)
		} else {
			rows, err = first.QueryContext(req.Context(), owner, limit+1)
		}
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		p := page{Items: make([]item, 0, limit)}
		var lastMs int64
		for rows.Next() {
			it, ms, err := scanRow(rows)
			if err != nil {
				http.Error(rw, err.Error(), http.StatusInternalServerError)
				return
			}
			if len(p.Items) == limit {
				c := strconv.FormatInt(lastMs, 10) + "." + p.Items[len(p.Items)-1].ID
				p.Next = &c
				break
			}
			p.Items = append(p.Items, it)
			lastMs = ms
		}
		writeJSON(rw, http.StatusOK, p)
	})
	mux.Put("/items", func(rw http.ResponseWriter, req *http.Request) {
		var in struct {
			Title string `json:"title"`
		}
		if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		now := time.Now().UTC()
		it := item{ID: newID(), Owner: owner, Email: "x@example.com", Name: in.Title, Role: "member", CreatedAt: now.Format("2006-01-02T15:04:05.000Z")}
		tx, err := w.BeginTx(req.Context(), nil)
		if err == nil {
			_, err = tx.ExecContext(req.Context(), insert, it.ID, it.Owner, it.Email, it.Name, it.Role, now.UnixMilli())
			if err == nil {
				err = tx.Commit()
			} else {
				tx.Rollback()
			}
		}
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(rw, http.StatusCreated, it)
	})

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	line, _ := json.Marshal(map[string]string{"addr": ln.Addr().String(), "id": sample})
	fmt.Println(string(line))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-sig.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

func seed(ctx context.Context, w *sql.DB, n int, q func(string) string) (string, error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, q(`INSERT INTO items (`+cols+`) VALUES (?, ?, ?, ?, ?, ?)`))
	if err != nil {
		return "", err
	}
	base := time.Now().Add(-time.Duration(n) * time.Second).UnixMilli()
	var sample string
	for i := 0; i < n; i++ {
		id := newID()
		if i == n/2 {
			sample = id
		}
		if _, err := st.ExecContext(ctx, id, owner, fmt.Sprintf("user%05d@example.com", i), fmt.Sprintf("User %05d", i), "read", base+int64(i)*1000); err != nil {
			return "", err
		}
	}
	return sample, tx.Commit()
}

type scanner interface{ Scan(...any) error }

func scanRow(sc scanner) (item, int64, error) {
	var it item
	var role sql.NullString
	var ms int64
	err := sc.Scan(&it.ID, &it.Owner, &it.Email, &it.Name, &role, &ms)
	it.Role = role.String
	it.CreatedAt = time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
	return it, ms, err
}

func scan(sc scanner) (item, error) {
	it, _, err := scanRow(sc)
	return it, err
}

func decodeCursor(c string) (int64, string, error) {
	for i := 0; i < len(c); i++ {
		if c[i] == '.' {
			ms, err := strconv.ParseInt(c[:i], 10, 64)
			return ms, c[i+1:], err
		}
	}
	return 0, "", fmt.Errorf("bad cursor")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
