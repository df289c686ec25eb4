package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

func admin(args []string) error {
	if len(args) == 0 {
		return errors.New("admin needs a command: bootstrap, user, token, backup, restore, copy-db or persisted-queries")
	}
	switch args[0] {
	case "bootstrap":
		return adminBootstrap(args[1:])
	case "user":
		return adminUser(args[1:])
	case "token":
		return adminToken(args[1:])
	case "backup":
		return adminBackup(args[1:])
	case "restore":
		return adminRestore(args[1:])
	case "copy-db":
		return adminCopyDB(args[1:])
	case "persisted-queries":
		return adminPersistedQueries(args[1:])
	default:
		return fmt.Errorf("unknown admin command %q", args[0])
	}
}

// printJSON writes exactly one JSON line on stdout.
func printJSON(v any) error { return json.NewEncoder(os.Stdout).Encode(v) }

func required(pairs ...string) error {
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("--%s is required", pairs[i])
		}
	}
	return nil
}

func adminBootstrap(args []string) error {
	f := newFlags("admin bootstrap")
	dbPath := f.DB()
	email := f.String("email", "", "e-mail of the admin user")
	name := f.String("name", "", "display name of the admin user")
	org := f.String("org", "", "title of the new organization")
	if err := f.Parse(args); err != nil {
		return err
	}
	if err := required("email", *email, "name", *name, "org", *org); err != nil {
		return err
	}
	db, err := storage.Open(*dbPath, storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	secret, hash := auth.NewToken()
	b, err := db.CreateOrganizationWithAdmin(context.Background(), *org, *email, *name, hash)
	if err != nil {
		return err
	}
	// A struct keeps the documented key order: user, organization, token.
	return printJSON(struct {
		User         string `json:"user"`
		Organization string `json:"organization"`
		Token        string `json:"token"`
	}{b.User.ID, b.Organization.ID, secret})
}

func adminUser(args []string) error {
	f := newFlags("admin user")
	dbPath := f.DB()
	email := f.String("email", "", "e-mail of the new user")
	name := f.String("name", "", "display name of the new user")
	org := f.String("org", "", "organization id to add the user to")
	role := f.String("role", "", "role in that organization (admin, create, review, edit, comment, read, or guest); default read")
	if err := f.Parse(args); err != nil {
		return err
	}
	if err := required("email", *email, "name", *name); err != nil {
		return err
	}
	var r *string
	if *org != "" {
		switch {
		case *role == "":
			v := "read"
			r = &v
		case *role == "guest":
		case model.Role(*role).IsValid():
			r = role
		default:
			return fmt.Errorf("--role must be one of %s or guest", model.Roles.List())
		}
	} else if *role != "" {
		return errors.New("--role needs --org")
	}
	db, err := storage.Open(*dbPath, storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	secret, hash := auth.NewToken()
	u, _, err := db.CreateUserWithToken(context.Background(), *email, *name, *org, r, *org != "", hash)
	if errors.Is(err, storage.ErrExists) {
		return fmt.Errorf("a user with e-mail %s already exists", *email)
	}
	if err != nil {
		return err
	}
	return printJSON(struct {
		User  string `json:"user"`
		Token string `json:"token"`
	}{u.ID, secret})
}

// adminToken creates an API token for an existing user: the way back in
// when the first start's token is lost. It works while a server runs on the
// same file.
func adminToken(args []string) error {
	f := newFlags("admin token")
	dbPath := f.DB()
	email := f.String("email", "", "e-mail of the user the token acts for")
	label := f.String("label", "docsapi admin token", "what the token is for (1 to 100 characters; shown in GET /v1/user/tokens)")
	readOnly := f.Bool("read-only", false, "refuse every write made with the token")
	if err := f.Parse(args); err != nil {
		return err
	}
	if err := required("email", *email, "label", *label); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(*label); n > 100 {
		return errors.New("--label must be at most 100 characters")
	}
	db, err := openExisting(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	u, err := db.UserByEmail(ctx, *email)
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("no user has the e-mail %s", *email)
	}
	if err != nil {
		return err
	}
	secret, hash := auth.NewToken()
	t := storage.Token{UserID: u.ID, Hash: hash, Kind: "api", Label: *label, ReadOnly: *readOnly}
	if err := db.CreateToken(ctx, &t); err != nil {
		return err
	}
	return printJSON(struct {
		User     string `json:"user"`
		ID       string `json:"id"`
		Label    string `json:"label"`
		ReadOnly bool   `json:"readOnly"`
		Token    string `json:"token"`
	}{u.ID, t.ID, t.Label, t.ReadOnly, secret})
}

// openExisting opens a database that must exist already: an admin command
// on a mistyped path must not create an empty database there (a
// PostgreSQL database is never created by docsapi: a wrong URL fails).
func openExisting(path string) (*storage.DB, error) {
	if err := storage.CheckTarget(path); err != nil {
		return nil, err
	}
	if !storage.IsPostgres(path) {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("--db: %w", err)
		}
	}
	return storage.Open(path, storage.Options{})
}

// oneFile parses flags and the single FILE argument after them.
func oneFile(f envFlags, args []string) (string, error) {
	if err := f.Parse(args); err != nil {
		return "", err
	}
	if f.NArg() != 1 {
		return "", fmt.Errorf("%s needs exactly one FILE argument after the flags", f.Name())
	}
	return f.Arg(0), nil
}

// adminBackup writes a consistent copy of the database while a server may
// be running on it (VACUUM INTO a temporary file, integrity check, rename).
func adminBackup(args []string) error {
	f := newFlags("admin backup")
	dbPath := f.DB()
	file, err := oneFile(f, args)
	if err != nil {
		return err
	}
	if storage.IsPostgres(*dbPath) {
		return storage.ErrBackupPostgres
	}
	db, err := openExisting(*dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	if err := db.Backup(context.Background(), file); err != nil {
		return err
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	return printJSON(map[string]any{"backup": file, "bytes": st.Size(), "integrity": "ok", "seconds": time.Since(start).Seconds()})
}

// adminRestore replaces the database with a backup. The server must be
// stopped first; the replaced database is kept beside it.
func adminRestore(args []string) error {
	f := newFlags("admin restore")
	dbPath := f.String("db", "./data/docsapi.db", "SQLite database file to replace (stop the server first); PostgreSQL: use pg_restore")
	file, err := oneFile(f, args)
	if err != nil {
		return err
	}
	if err := storage.CheckTarget(*dbPath); err != nil {
		return err
	}
	if storage.IsPostgres(*dbPath) {
		return errors.New("docsapi restores SQLite backups only; restore a PostgreSQL database with pg_restore or psql")
	}
	kept, err := storage.Restore(context.Background(), *dbPath, file)
	if err != nil {
		return err
	}
	return printJSON(map[string]string{"restored": *dbPath, "from": file, "previous": kept})
}

// adminCopyDB copies every row of one database into another, empty one
// (storage.CopyDatabase): moving an installation to another database. The
// source may be in use; the target must not be.
func adminCopyDB(args []string) error {
	f := newFlags("admin copy-db")
	from := f.String("from", "", "database to copy (a SQLite file, or a database URL)")
	to := f.String("to", "", "empty database to copy into (created when it is a new SQLite file)")
	if err := f.Parse(args); err != nil {
		return err
	}
	if err := required("from", *from, "to", *to); err != nil {
		return err
	}
	if *from == *to {
		return errors.New("--from and --to name the same database")
	}
	open := storage.Open
	if !strings.Contains(*from, "://") {
		open = func(path string, _ storage.Options) (*storage.DB, error) { return openExisting(path) }
	}
	src, err := open(*from, storage.Options{})
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	defer src.Close()
	dst, err := storage.Open(*to, storage.Options{})
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	defer dst.Close()
	start := time.Now()
	counts, err := storage.CopyDatabase(context.Background(), src, dst)
	if err != nil {
		return err
	}
	type table struct {
		Table  string `json:"table"`
		Source int64  `json:"source"`
		Target int64  `json:"target"`
	}
	out := struct {
		From    string  `json:"from"`
		To      string  `json:"to"`
		Rows    int64   `json:"rows"`
		Tables  []table `json:"tables"`
		Seconds float64 `json:"seconds"`
	}{From: redactURL(*from), To: redactURL(*to)}
	for _, c := range counts {
		out.Rows += c.Target
		out.Tables = append(out.Tables, table{c.Table, c.Source, c.Target})
	}
	out.Seconds = time.Since(start).Seconds()
	return printJSON(out)
}

// redactURL hides the password of a database URL in what is printed.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}
