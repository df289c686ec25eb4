package storage

// Fresh databases for tests, on SQLite or on the PostgreSQL server that
// DOCSAPI_TEST_DB names (the one switch that runs the suite on PostgreSQL).

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// TestDBEnv is the environment variable naming a PostgreSQL server
// (postgres://user@host:port/db) on which tests may create and drop
// databases; unset, tests use SQLite files.
const TestDBEnv = "DOCSAPI_TEST_DB"

// TestOnPostgres reports whether tests run on PostgreSQL.
func TestOnPostgres() bool { return os.Getenv(TestDBEnv) != "" }

// TestTarget is the database a test opens, migrated already: a new SQLite
// file in dir (a copy of a file migrated once per test process), or a new
// PostgreSQL database on the DOCSAPI_TEST_DB server (a copy of a template
// database migrated once per schema). cleanup drops it (nothing to do for
// a file: dir goes with the test).
func TestTarget(dir string) (target string, cleanup func(), err error) {
	server := os.Getenv(TestDBEnv)
	if server == "" {
		path := filepath.Join(dir, "test.db")
		return path, func() {}, copyMigratedSQLite(path)
	}
	return newTestDatabase(server, true)
}

// migratedSQLite is the bytes of a freshly migrated SQLite database, made
// once per test process: migrating costs about 50 ms, and about a second
// under the race detector (modernc.org/sqlite is Go, instrumented like
// the rest), where a copy costs a millisecond, for each of the suite's
// hundreds of fresh databases.
var migratedSQLite struct {
	once  sync.Once
	bytes []byte
	err   error
}

// copyMigratedSQLite writes the migrated database to path.
func copyMigratedSQLite(path string) error {
	migratedSQLite.once.Do(func() {
		dir, err := os.MkdirTemp("", "docsapi-test-template-")
		if err != nil {
			migratedSQLite.err = err
			return
		}
		defer os.RemoveAll(dir)
		file := filepath.Join(dir, "template.db")
		db, err := Open(file, Options{Readers: 1})
		if err != nil {
			migratedSQLite.err = fmt.Errorf("migrate the test template: %w", err)
			return
		}
		if err := db.Close(); err != nil {
			migratedSQLite.err = err
			return
		}
		// The last connection's close checkpoints the WAL into the file and
		// removes it: the file alone is the whole database.
		if _, err := os.Stat(file + "-wal"); err == nil {
			migratedSQLite.err = fmt.Errorf("the test template's WAL outlived its close")
			return
		}
		migratedSQLite.bytes, migratedSQLite.err = os.ReadFile(file)
	})
	if migratedSQLite.err != nil {
		return migratedSQLite.err
	}
	return os.WriteFile(path, migratedSQLite.bytes, 0o600)
}

var testAdmin struct {
	once sync.Once
	db   *sql.DB
	err  error

	// The copies of the template made ahead (testSpares).
	mu     sync.Mutex
	spares []string // made, not taken yet
	making bool     // one is being made
	owner  string   // the name prefix of this process's spares
	pinned *sql.Conn
}

// The spares' names: docsapi_spare_<pid>_<random>, <pid> the backend of a
// connection this process holds while it lives.
const testSparePrefix = "docsapi_spare_"

// openTestAdmin connects to server once per process, pins the connection
// whose backend names this process's spares, and drops the spares of test
// processes that have ended (their connection is gone).
func openTestAdmin(server string) (*sql.DB, error) {
	testAdmin.once.Do(func() {
		cfg, err := pgx.ParseConfig(server)
		if err != nil {
			testAdmin.err = err
			return
		}
		db := sql.OpenDB(stdlib.GetConnector(*cfg))
		db.SetMaxOpenConns(4)
		ctx := context.Background()
		pinned, err := db.Conn(ctx)
		if err != nil {
			testAdmin.err = err
			return
		}
		var pid int
		if err := pinned.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			testAdmin.err = err
			return
		}
		rows, err := db.QueryContext(ctx, `SELECT datname FROM pg_database d WHERE datname LIKE 'docsapi\_spare\_%'
			AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE d.datname LIKE 'docsapi\_spare\_' || a.pid || '\_%')`)
		if err != nil {
			testAdmin.err = err
			return
		}
		var orphans []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				testAdmin.err = err
				return
			}
			orphans = append(orphans, name)
		}
		rows.Close()
		for _, name := range orphans {
			db.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
		}
		testAdmin.db, testAdmin.pinned = db, pinned
		testAdmin.owner = fmt.Sprintf("%s%d_", testSparePrefix, pid)
	})
	return testAdmin.db, testAdmin.err
}

// testSpare hands out a copy of template made ahead, if one is ready, and
// starts making the next. rest's tests run one after another, each on a
// fresh database, and a copy takes a third of a second or more, mostly
// waiting on the disk: made while the previous test runs, it costs the
// next one nothing. "" when none is ready (the caller copies it itself).
func testSpare(admin *sql.DB, template string) string {
	testAdmin.mu.Lock()
	defer testAdmin.mu.Unlock()
	name := ""
	if n := len(testAdmin.spares); n > 0 {
		name, testAdmin.spares = testAdmin.spares[n-1], testAdmin.spares[:n-1]
	}
	if !testAdmin.making {
		testAdmin.making = true
		next := testAdmin.owner + randomHex()
		go func() {
			_, err := admin.ExecContext(context.Background(), `CREATE DATABASE `+next+` TEMPLATE `+template)
			testAdmin.mu.Lock()
			defer testAdmin.mu.Unlock()
			testAdmin.making = false
			if err == nil {
				testAdmin.spares = append(testAdmin.spares, next)
			}
		}()
	}
	return name
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newTestDatabase creates a database on server: a copy of the migrated
// template, or an empty one (migrated false).
func newTestDatabase(server string, migrated bool) (string, func(), error) {
	if !IsPostgres(server) {
		return "", nil, fmt.Errorf("%s must be a postgres:// URL", TestDBEnv)
	}
	admin, err := openTestAdmin(server)
	if err != nil {
		return "", nil, err
	}
	ctx := context.Background()
	template := "docsapi_template_" + schemaVersion()
	name := "docsapi_test_" + randomHex()

	// One builder of the template at a time across test processes: a
	// template cannot be copied while another session (its migration) is
	// connected to it. Copies of a finished template may run together: the
	// creating sessions connect to the server's default database, not to
	// the template.
	conn, err := admin.Conn(ctx)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(6461746162617365)`); err != nil {
		return "", nil, err
	}
	unlock := func() error {
		_, err := conn.ExecContext(ctx, `SELECT pg_advisory_unlock(6461746162617365)`)
		return err
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	var found int
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_database WHERE datname = $1`, template).Scan(&found); err != nil {
		return "", nil, err
	}
	if !migrated {
		template = "template1"
	} else if found == 0 {
		building := template + "_building"
		if _, err := conn.ExecContext(ctx, `DROP DATABASE IF EXISTS `+building+` WITH (FORCE)`); err != nil {
			return "", nil, err
		}
		if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+building); err != nil {
			return "", nil, err
		}
		db, err := Open(databaseURL(server, building), Options{Readers: 1})
		if err != nil {
			return "", nil, fmt.Errorf("migrate the test template: %w", err)
		}
		db.Close()
		if _, err := conn.ExecContext(ctx, `ALTER DATABASE `+building+` RENAME TO `+template); err != nil {
			return "", nil, err
		}
	}
	locked = false
	if err := unlock(); err != nil {
		return "", nil, err
	}
	spare := ""
	if migrated {
		spare = testSpare(admin, template)
	}
	if spare != "" {
		name = spare
	} else if _, err := conn.ExecContext(ctx, `CREATE DATABASE `+name+` TEMPLATE `+template); err != nil {
		return "", nil, err
	}
	drop := func() {
		admin.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	}
	return databaseURL(server, name), drop, nil
}

// databaseURL is server's URL naming database name instead.
func databaseURL(server, name string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Path = "/" + name
	return u.String()
}

// schemaVersion names the PostgreSQL migrations (a template made by other
// migrations is never reused).
func schemaVersion() string {
	names, _ := fs.Glob(migrationFiles, "migrations/postgres/*.sql")
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, _ := migrationFiles.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
