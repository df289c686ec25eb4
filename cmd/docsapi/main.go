// Command docsapi runs the Docs Platform Management API server and its
// administration commands.
//
//	docsapi serve [--addr 127.0.0.1:8080] [--db ./data/docsapi.db] ...
//	docsapi admin bootstrap --db PATH --email E --name N --org TITLE
//	docsapi admin user --db PATH --email E --name N [--org ORGID --role ROLE]
//	docsapi admin backup --db PATH FILE
//	docsapi admin restore --db PATH FILE
//	docsapi admin copy-db --from DB --to DB
//	docsapi admin persisted-queries add|list|remove --db PATH ...
//	docsapi healthcheck [--addr ADDR]
//
// --db is a SQLite file path or a postgres:// URL (backup and restore:
// SQLite only; PostgreSQL has pg_dump and pg_restore).
// Every flag has an environment twin (DOCSAPI_ADDR, DOCSAPI_DB, ...).
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	// Mozilla's root certificates, used only where the system has none (the
	// container image is FROM scratch): server-side fetches over HTTPS
	// (imports, OpenAPI URLs, webhooks) verify their servers there too.
	_ "golang.org/x/crypto/x509roots/fallback"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0"

func build() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return s.Value[:12]
			}
		}
	}
	return "dev"
}

const usage = `usage:
  docsapi serve [flags]                 start the API server (docsapi serve -h for flags)
  docsapi admin bootstrap --db PATH --email E --name N --org TITLE
  docsapi admin user --db PATH --email E --name N [--org ORGID --role ROLE]
  docsapi admin backup --db PATH FILE   consistent copy while the server runs
  docsapi admin restore --db PATH FILE  replace the database with a backup (stop the server first)
  docsapi admin copy-db --from DB --to DB  copy every row into a new, empty database
  docsapi admin persisted-queries add --db PATH [--name N] FILE...  register GraphQL documents (a GraphQL file, or an Apollo manifest .json)
  docsapi admin persisted-queries list --db PATH              one JSON line per registered document
  docsapi admin persisted-queries remove --db PATH HASH...    unregister documents
  docsapi version
  docsapi healthcheck [--addr ADDR]    exit 0 when the server at ADDR answers /healthz (a container's health check)
--db (DOCSAPI_DB) is a SQLite file path (default ./data/docsapi.db) or a postgres:// URL.`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "admin":
		err = admin(os.Args[2:])
	case "version":
		fmt.Println(version, build())
	case "healthcheck":
		err = healthcheck(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Println(usage)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "docsapi:", err)
		os.Exit(1)
	}
}
