#!/usr/bin/env bash
# Runs a command against a private, throwaway PostgreSQL cluster:
#
#   test/pg/cluster.sh [command args...]
#
# initdb in a temporary folder, listening on loopback only (PGPORT, or the
# first free port from 55432) with its unix socket in that folder; the command runs with
# DOCSAPI_TEST_DB set to the cluster's URL (tests create and drop their own
# databases there); the cluster is stopped and its folder removed when the
# command ends, whatever its outcome. Without a command it prints the URL
# and waits for Ctrl-C.
#
# Finds initdb/pg_ctl on PATH or under /usr/lib/postgresql/*/bin. Debian's
# initdb refuses to run as root, so as root the cluster runs as the
# `postgres` user (or `nobody`) in a folder that user owns.
set -euo pipefail

bindir=""
if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
  bindir="$(dirname "$(command -v initdb)")"
else
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir="$d"; break; fi
  done
fi
if [ -z "$bindir" ]; then
  echo "test/pg/cluster.sh: no PostgreSQL server binaries (initdb, pg_ctl) on PATH or in /usr/lib/postgresql/*/bin" >&2
  exit 1
fi

port="${PGPORT:-}"
if [ -z "$port" ]; then
  for p in $(seq 55432 55531); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
  done
fi
[ -n "$port" ] || { echo "test/pg/cluster.sh: no free port in 55432-55531" >&2; exit 1; }
dir="$(mktemp -d /tmp/docsapi-pg.XXXXXX)"
chmod 755 "$dir"
as=()
if [ "$(id -u)" = 0 ]; then
  user=postgres
  id postgres >/dev/null 2>&1 || user=nobody
  chown "$user" "$dir"
  as=(runuser -u "$user" --)
fi

stop() {
  "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT INT TERM

"${as[@]}" "$bindir/initdb" -D "$dir/data" -U docsapi --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
  "${as[@]}" "$bindir/initdb" -D "$dir/data" -U docsapi --auth=trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 1; }
# Tests run in parallel, each with its own database and a small pool; the
# durability settings stay PostgreSQL's defaults (fsync on) so that the
# figures compare with SQLite's synchronous=FULL.
"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=400 -c shared_buffers=128MB" start >/dev/null ||
  { cat "$dir/server.log" >&2; exit 1; }

export DOCSAPI_TEST_DB="postgres://docsapi@127.0.0.1:$port/postgres?sslmode=disable"
if [ $# -eq 0 ]; then
  echo "$DOCSAPI_TEST_DB"
  echo "(Ctrl-C stops the cluster)"
  while sleep 3600; do :; done
fi
"$@"
