#!/usr/bin/env bash
# docsapi on PostgreSQL beside docsapi on SQLite: the same seed, the same
# requests, the same machine and run. Starts a private PostgreSQL cluster
# (test/pg/cluster.sh: loopback, temporary folder, removed at the end).
#
#   bench/pg.sh                       # 10 s per measurement, 16 clients
#   DURATION=5s CONC=8 SPACES=1000 bench/pg.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${DOCSAPI_TEST_DB:-}" ]; then exec test/pg/cluster.sh "$0" "$@"; fi

DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONC=${CONC:-16}
MEMBERS=${MEMBERS:-1000}
TEAMS=${TEAMS:-20}
SPACES=${SPACES:-1000}
GO=${GO:-go}

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

$GO build -o "$work/docsapi" ./cmd/docsapi
$GO build -o "$work/load" ./bench/load
$GO build -o "$work/seed" ./bench/seed/cmd/seed

psql -q -v ON_ERROR_STOP=1 -d "$DOCSAPI_TEST_DB" -c "CREATE DATABASE docsapi_bench"
pg_url=$(sed -E 's#^(postgres(ql)?://[^/]+)/[^?]*#\1/docsapi_bench#' <<<"$DOCSAPI_TEST_DB")
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

declare -A res
for backend in sqlite postgres; do
  db="$work/docsapi.db"
  [ "$backend" = postgres ] && db="$pg_url"
  echo "seeding $backend: $MEMBERS members, $TEAMS teams, $SPACES spaces ..." >&2
  s0=$(date +%s.%N)
  seed=$("$work/seed" --db "$db" --members "$MEMBERS" --teams "$TEAMS" --spaces "$SPACES")
  s1=$(date +%s.%N)
  res[seed_$backend]=$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.1f", b - a }')
  org=$(field organization "$seed"); token=$(field token "$seed"); space=$(field space "$seed")
  "$work/docsapi" serve --addr 127.0.0.1:0 --db "$db" --log-level warn --rate-limit 1000000000 >"$work/$backend.out" 2>"$work/$backend.log" &
  pid=$!; pids+=($pid)
  for _ in $(seq 1 300); do grep -q 'listening on' "$work/$backend.out" && break; sleep 0.05; done
  api=$(sed -n 's/^listening on http:\/\/\([^ ]*\).*/\1/p' "$work/$backend.out")
  [ -n "$api" ] || { cat "$work/$backend.out" "$work/$backend.log" >&2; exit 1; }
  for k in space spaces create; do
    case $k in
      space) args=(-H "Authorization: Bearer $token" -url "http://$api/v1/spaces/$space") ;;
      spaces) args=(-H "Authorization: Bearer $token" -url "http://$api/v1/orgs/$org/spaces?limit=100") ;;
      create) args=(-H "Authorization: Bearer $token" -method PUT -body '{"title":"bench"}' -expect 201 -url "http://$api/v1/orgs/$org/teams") ;;
    esac
    "$work/load" -c "$CONC" -d "$WARMUP" -warmup 0 "${args[@]}" >/dev/null 2>&1 || true
    t0=$(cpu_ticks "$pid")
    out=$("$work/load" -tsv -c "$CONC" -d "$DURATION" -warmup 0 "${args[@]}")
    t1=$(cpu_ticks "$pid")
    res[${backend}_$k]=$(awk -v o="$out" -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN {
      split(o, f, "\t"); printf "%s\t%s\t%s\t%.3f\n", f[1], f[2], f[3], (b - a) / hz * 1000 / f[4] }')
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
done

echo
echo "docsapi on SQLite and on PostgreSQL $(postgres --version 2>/dev/null | awk '{print $3}' || true); $(nproc) cores, concurrency $CONC, $DURATION per run, $MEMBERS members, $SPACES spaces, $($GO env GOVERSION)"
printf '%-40s | %8s %7s %7s %7s | %8s %7s %7s %7s | %5s\n' request "SQLite/s" "p50 ms" "p99 ms" "cpu ms" "PG r/s" "p50 ms" "p99 ms" "cpu ms" "PG/SQ"
for k in space spaces create; do
  case $k in
    space) n="GET /v1/spaces/{id}" ;;
    spaces) n="GET /v1/orgs/{id}/spaces?limit=100" ;;
    create) n="PUT /v1/orgs/{id}/teams (durable create)" ;;
  esac
  read -r a ap50 ap99 acpu <<<"${res[sqlite_$k]}"
  read -r b bp50 bp99 bcpu <<<"${res[postgres_$k]}"
  printf '%-40s | %8s %7s %7s %7s | %8s %7s %7s %7s | %5s\n' "$n" "$a" "$ap50" "$ap99" "$acpu" "$b" "$bp50" "$bp99" "$bcpu" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')"
done
echo "seeding: SQLite ${res[seed_sqlite]} s, PostgreSQL ${res[seed_postgres]} s. cpu ms: docsapi's CPU per request (the PostgreSQL server's own CPU is not in it)."
