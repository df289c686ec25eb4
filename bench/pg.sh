#!/usr/bin/env bash
# docsapi on PostgreSQL beside docsapi on SQLite: the same seed, the same
# requests, the same machine and run. Starts a private PostgreSQL cluster
# (test/pg/cluster.sh: loopback, temporary folder, removed at the end).
#
#   bench/pg.sh                       # 10 s per measurement, 16 clients
#   DURATION=5s CONC=8 SPACES=1000 bench/pg.sh
#
# After the single-process rows it measures two replicas against one: two
# `docsapi serve` processes on the same PostgreSQL database, each loaded by
# its own bench/load with half the clients, results summed (REPLICAS=0
# skips it). Then writes in parallel: creates spread over ORGS organizations
# (ORGS-1 more seeded small) against creates on one, and docsapi against a
# bare pgx server (bench/bare on its own database: a primary-key read and a
# durable insert). PPROF=127.0.0.1:6061 serves the Go profiles of the
# servers it starts (one at a time).
#
# To run only some rows (an A/B of two builds, side by side):
#   BACKENDS=postgres ROWS=create PARALLEL=0 REPLICAS=0 DOCSAPI=/tmp/a/docsapi bench/pg.sh
# BACKENDS (sqlite postgres), ROWS (space spaces create: the single-process
# rows, each PostgreSQL one with bare's beside it), PARALLEL=0 skips the
# creates over organizations, DOCSAPI runs a docsapi binary built before
# instead of building the tree's.
#
# Each comparison (docsapi against bare, 8 organizations against one, two
# replicas against one) alternates its two sides ROUNDS times (default 2),
# and the best run of each side counts, as in bench/run.sh and
# bench/scale.sh: the machine's own swings between minutes are larger than
# the differences measured.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${DOCSAPI_TEST_DB:-}" ]; then exec test/pg/cluster.sh "$0" "$@"; fi

DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONC=${CONC:-16}
MEMBERS=${MEMBERS:-1000}
TEAMS=${TEAMS:-20}
SPACES=${SPACES:-1000}
ORGS=${ORGS:-8}
GO=${GO:-go}
BACKENDS=${BACKENDS:-sqlite postgres}
ROWS=${ROWS:-space spaces create}
PARALLEL=${PARALLEL:-1}
ROUNDS=${ROUNDS:-2}

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${DOCSAPI:-}" ]; then cp "$DOCSAPI" "$work/docsapi"; else $GO build -o "$work/docsapi" ./cmd/docsapi; fi
$GO build -o "$work/load" ./bench/load
$GO build -o "$work/seed" ./bench/seed/cmd/seed
$GO build -o "$work/bare" ./bench/bare

psql -q -v ON_ERROR_STOP=1 -d "$DOCSAPI_TEST_DB" -c "CREATE DATABASE docsapi_bench"
postmaster=$(head -1 "$(psql -At -d "$DOCSAPI_TEST_DB" -c 'SHOW data_directory')/postmaster.pid" 2>/dev/null || echo 0)
pg_url=$(sed -E 's#^(postgres(ql)?://[^/]+)/[^?]*#\1/docsapi_bench#' <<<"$DOCSAPI_TEST_DB")
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# pg_ticks: the PostgreSQL cluster's CPU ticks so far: the postmaster's own
# and its ended children's, and each running child's (its backends).
pg_ticks() {
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v pm="$postmaster" '{ pid = $1; sub(/^.*\) /, ""); if (pid == pm) t += $12 + $13 + $14 + $15; else if ($2 == pm) t += $12 + $13 }
    END { print t + 0 }'
}

# start_server LOGNAME DB: starts one `docsapi serve`; sets pid and api.
start_server() {
  "$work/docsapi" serve --addr 127.0.0.1:0 --db "$2" --log-level warn --rate-limit 1000000000 ${PPROF:+--pprof-addr "$PPROF"} >"$work/$1.out" 2>"$work/$1.log" &
  pid=$!; pids+=($pid)
  for _ in $(seq 1 300); do grep -q 'listening on' "$work/$1.out" && break; sleep 0.05; done
  api=$(sed -n 's/^listening on http:\/\/\([^ ]*\).*/\1/p' "$work/$1.out")
  [ -n "$api" ] || { cat "$work/$1.out" "$work/$1.log" >&2; exit 1; }
}

# request_args KIND API [ORG TOKEN]: the load arguments of one measured
# request (on the seeded organization unless ORG and TOKEN are given).
request_args() {
  local o=${3:-$org} k=${4:-$token}
  case $1 in
    space) args=(-H "Authorization: Bearer $k" -url "http://$2/v1/spaces/$space") ;;
    spaces) args=(-H "Authorization: Bearer $k" -url "http://$2/v1/orgs/$o/spaces?limit=100") ;;
    create) args=(-H "Authorization: Bearer $k" -method PUT -body '{"title":"bench"}' -expect 201 -url "http://$2/v1/orgs/$o/teams") ;;
    create-space) args=(-H "Authorization: Bearer $k" -method POST -body '{"title":"bench"}' -expect 201 -url "http://$2/v1/orgs/$o/spaces") ;;
    bare-get) args=(-url "http://$2/items/$bare_id") ;;
    bare-put) args=(-method PUT -body '{"title":"bench"}' -expect 201 -url "http://$2/items") ;;
  esac
}

# measure KIND "PID..." "API..." [NORGS [LOADS]]: loads every server at
# once, CONC clients split evenly between them (one bench/load per server),
# after a warm-up; with NORGS, split between NORGS organizations as well (a
# bench/load per organization, the organizations dealt to the servers in
# turn), or between LOADS bench/loads dealt the NORGS organizations in turn
# (creates on one organization against creates on eight: the same number of
# load processes on both sides, so that only the organizations differ).
# Prints req/s summed, the highest p50 and p99 of the loads, and docsapi's
# CPU ms per request summed over the servers.
measure() {
  local kind=$1 ps=($2) as=($3) norgs=${4:-0} i t0=0 t1=0 outs=() files=() targets=()
  if [ "$norgs" -gt 0 ]; then
    local loads=${5:-$norgs}
    for ((i = 0; i < loads; i++)); do targets+=("${as[$((i % ${#as[@]}))]} ${orgs[$((i % norgs))]} ${tokens[$((i % norgs))]}"); done
  else
    for i in "${!as[@]}"; do targets+=("${as[$i]}"); done
  fi
  local c=$((CONC / ${#targets[@]}))
  for i in "${!targets[@]}"; do request_args "$kind" ${targets[$i]}; "$work/load" -c "$c" -d "$WARMUP" -warmup 0 "${args[@]}" >/dev/null 2>&1 & outs+=($!); done
  for p in "${outs[@]}"; do wait "$p" || true; done
  for p in "${ps[@]}"; do t0=$((t0 + $(cpu_ticks "$p"))); done
  local g0 g1; g0=$(pg_ticks)
  outs=()
  for i in "${!targets[@]}"; do
    request_args "$kind" ${targets[$i]}
    "$work/load" -tsv -c "$c" -d "$DURATION" -warmup 0 "${args[@]}" >"$work/load.$i" & outs+=($!); files+=("$work/load.$i")
  done
  for p in "${outs[@]}"; do wait "$p"; done
  for p in "${ps[@]}"; do t1=$((t1 + $(cpu_ticks "$p"))); done
  g1=$(pg_ticks)
  cat "${files[@]}" | awk -F'\t' -v a="$t0" -v b="$t1" -v ga="$g0" -v gb="$g1" -v hz="$(getconf CLK_TCK)" '
    { rps += $1; reqs += $4; if ($2 > p50) p50 = $2; if ($3 > p99) p99 = $3 }
    END { printf "%.0f\t%.2f\t%.2f\t%.3f\t%.3f\n", rps, p50, p99, (b - a) / hz * 1000 / reqs, (gb - ga) / hz * 1000 / reqs }'
}

# best A B: the better of two measure lines (higher req/s), A when B is empty.
best() {
  if [ -z "$2" ]; then echo "$1"; return; fi
  awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, "\t"); split(b, y, "\t"); print (y[1] + 0 > x[1] + 0 ? b : a) }'
}

# The bare pgx server on a database of its own, the same cluster, started
# first: each of its rows is measured right after docsapi's on PostgreSQL
# (same minute, same state of the machine; ratios are what count).
psql -q -v ON_ERROR_STOP=1 -d "$DOCSAPI_TEST_DB" -c "CREATE DATABASE docsapi_bare"
bare_url=$(sed -E 's#^(postgres(ql)?://[^/]+)/[^?]*#\1/docsapi_bare#' <<<"$DOCSAPI_TEST_DB")
"$work/bare" --addr 127.0.0.1:0 --db "$bare_url" --rows "$MEMBERS" >"$work/bare.out" 2>"$work/bare.log" &
bare_pid=$!; pids+=($bare_pid)
for _ in $(seq 1 300); do grep -q '"addr"' "$work/bare.out" && break; sleep 0.05; done
bare_api=$(field addr "$(cat "$work/bare.out")"); bare_id=$(field id "$(cat "$work/bare.out")")
[ -n "$bare_api" ] || { cat "$work/bare.out" "$work/bare.log" >&2; exit 1; }

declare -A res
for backend in $BACKENDS; do
  db="$work/docsapi.db"
  [ "$backend" = postgres ] && db="$pg_url"
  echo "seeding $backend: $MEMBERS members, $TEAMS teams, $SPACES spaces ..." >&2
  s0=$(date +%s.%N)
  seed=$("$work/seed" --db "$db" --members "$MEMBERS" --teams "$TEAMS" --spaces "$SPACES")
  s1=$(date +%s.%N)
  res[seed_$backend]=$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.1f", b - a }')
  org=$(field organization "$seed"); token=$(field token "$seed"); space=$(field space "$seed")
  if [ "$backend" = postgres ]; then
    # The organizations creates are spread over: the seeded one and ORGS-1 small ones.
    orgs=("$org"); tokens=("$token")
    for ((i = 1; i < ORGS; i++)); do
      more=$("$work/seed" --db "$db" --members 10 --teams 1 --spaces 10 --org-title "Bench Org $i")
      orgs+=("$(field organization "$more")"); tokens+=("$(field token "$more")")
    done
  fi
  start_server "$backend" "$db"
  for k in $ROWS; do
    for _ in $(seq 1 "$ROUNDS"); do
      res[${backend}_$k]=$(best "$(measure "$k" "$pid" "$api")" "${res[${backend}_$k]:-}")
      if [ "$backend" = postgres ] && [ "$k" != spaces ]; then
        echo "bare pgx: $k ..." >&2
        bk=bare-get; [ "$k" = create ] && bk=bare-put
        res[${bk/-/_}]=$(best "$(measure "$bk" "$bare_pid" "$bare_api")" "${res[${bk/-/_}]:-}")
      fi
    done
  done
  if [ "$backend" = postgres ] && [ "$PARALLEL" != 0 ]; then
    echo "writes in parallel: creates on 1 and on $ORGS organizations, $ROUNDS rounds ..." >&2
    for _ in $(seq 1 "$ROUNDS"); do
      res[orgs_one]=$(best "$(measure create "$pid" "$api" 1 "$ORGS")" "${res[orgs_one]:-}")
      res[orgs_many]=$(best "$(measure create "$pid" "$api" "$ORGS")" "${res[orgs_many]:-}")
      res[sorgs_one]=$(best "$(measure create-space "$pid" "$api" 1 "$ORGS")" "${res[sorgs_one]:-}")
      res[sorgs_many]=$(best "$(measure create-space "$pid" "$api" "$ORGS")" "${res[sorgs_many]:-}")
    done
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
done


# Two replicas against one, on the same PostgreSQL database: the same total
# of clients, split between two processes; the one-process figure is taken
# again next to it (same database state, same minute).
if [ "${REPLICAS:-1}" != 0 ]; then
  start_server pg1 "$pg_url"; p1=$pid; a1=$api
  start_server pg2 "$pg_url"; p2=$pid; a2=$api
  for _ in $(seq 1 "$ROUNDS"); do
    for k in space spaces; do
      echo "replicas: $k ..." >&2
      res[one_$k]=$(best "$(measure "$k" "$p1" "$a1")" "${res[one_$k]:-}")
      res[two_$k]=$(best "$(measure "$k" "$p1 $p2" "$a1 $a2")" "${res[two_$k]:-}")
    done
    echo "replicas: create on $ORGS organizations ..." >&2
    res[one_create]=$(best "$(measure create "$p1" "$a1" "$ORGS")" "${res[one_create]:-}")
    res[two_create]=$(best "$(measure create "$p1 $p2" "$a1 $a2" "$ORGS")" "${res[two_create]:-}")
  done
  kill "$p1" "$p2"; wait "$p1" "$p2" 2>/dev/null || true
fi

title() {
  case $1 in
    space) echo "GET /v1/spaces/{id}" ;;
    spaces) echo "GET /v1/orgs/{id}/spaces?limit=100" ;;
    create) echo "PUT /v1/orgs/{id}/teams (durable create)" ;;
    create-orgs) echo "PUT /v1/orgs/{id}/teams, $ORGS orgs" ;;
  esac
}
# ratio A B: B/A to two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }'; }
echo
echo "docsapi on SQLite and on PostgreSQL $(postgres --version 2>/dev/null | awk '{print $3}' || true); $(nproc) cores, concurrency $CONC, $DURATION per run, best of $ROUNDS, $MEMBERS members, $SPACES spaces, $($GO env GOVERSION)"
printf '%-40s | %8s %7s %7s %7s | %8s %7s %7s %7s | %5s\n' request "SQLite/s" "p50 ms" "p99 ms" "cpu ms" "PG r/s" "p50 ms" "p99 ms" "cpu ms" "PG/SQ"
for k in space spaces create; do
  read -r a ap50 ap99 acpu _ <<<"${res[sqlite_$k]:-}"
  read -r b bp50 bp99 bcpu _ <<<"${res[postgres_$k]:-}"
  printf '%-40s | %8s %7s %7s %7s | %8s %7s %7s %7s | %5s\n' "$(title $k)" "$a" "$ap50" "$ap99" "$acpu" "$b" "$bp50" "$bp99" "$bcpu" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')"
done
echo "seeding: SQLite ${res[seed_sqlite]:-} s, PostgreSQL ${res[seed_postgres]:-} s. cpu ms: docsapi's CPU per request (the PostgreSQL server's own CPU is not in it)."
if [ "${REPLICAS:-1}" != 0 ]; then
  echo
  echo "PostgreSQL, one process against two replicas on the same database; $CONC clients in all (two replicas: $((CONC / 2)) each, req/s summed, the higher p50/p99)"
  printf '%-40s | %8s %7s %7s %7s | %8s %7s %7s %7s | %5s\n' request "1 r/s" "p50 ms" "p99 ms" "cpu ms" "2 r/s" "p50 ms" "p99 ms" "cpu ms" "2/1"
  for k in space spaces create; do
    read -r a ap50 ap99 acpu _ <<<"${res[one_$k]}"
    read -r b bp50 bp99 bcpu _ <<<"${res[two_$k]}"
    t=$k; [ "$k" = create ] && t=create-orgs
    printf '%-40s | %8s %7s %7s %7s | %8s %7s %7s %7s | %5s\n' "$(title $t)" "$a" "$ap50" "$ap99" "$acpu" "$b" "$bp50" "$bp99" "$bcpu" "$(ratio "$a" "$b")"
  done
fi
echo
echo "PostgreSQL writes in parallel, and docsapi against a bare pgx server (bench/bare: same cluster, same durability); $CONC clients"
printf '%-52s | %8s | %8s | %5s | %s\n' row "A r/s" "B r/s" "B/A" target
if [ "$PARALLEL" != 0 ]; then
  read -r a _ <<<"${res[orgs_one]:-}"; read -r b _ <<<"${res[orgs_many]:-}"
  printf '%-52s | %8s | %8s | %5s | %s\n' "creates: 1 org (A) vs $ORGS orgs (B)" "$a" "$b" "$(ratio "$a" "$b")" ">= 1.5"
  read -r a _ <<<"${res[sorgs_one]:-}"; read -r b _ <<<"${res[sorgs_many]:-}"
  printf '%-52s | %8s | %8s | %5s | %s\n' "space creates (ordered): 1 org (A) vs $ORGS orgs (B)" "$a" "$b" "$(ratio "$a" "$b")" ">= 1.5"
fi
if [ "${REPLICAS:-1}" != 0 ]; then
  read -r a _ <<<"${res[one_create]}"; read -r b _ <<<"${res[two_create]}"
  printf '%-52s | %8s | %8s | %5s | %s\n' "creates on $ORGS orgs: 1 replica (A) vs 2 (B)" "$a" "$b" "$(ratio "$a" "$b")" ">= 1.0"
fi
read -r a _ <<<"${res[bare_put]:-}"; read -r b _ <<<"${res[postgres_create]:-}"
printf '%-52s | %8s | %8s | %5s | %s\n' "durable create: bare pgx insert (A) vs docsapi (B)" "$a" "$b" "$(ratio "$a" "$b")" ">= 0.8"
read -r a _ <<<"${res[bare_get]:-}"; read -r b _ <<<"${res[postgres_space]:-}"
printf '%-52s | %8s | %8s | %5s | %s\n' "GET one: bare pgx PK read (A) vs docsapi (B)" "$a" "$b" "$(ratio "$a" "$b")" ">= 0.75"
echo
echo "CPU ms per request, docsapi's (or bare's) process + the PostgreSQL cluster's (all its processes; the load generator's not in it)"
for k in postgres_create bare_put postgres_space bare_get orgs_one orgs_many sorgs_one sorgs_many; do
  [ -n "${res[$k]:-}" ] || continue
  read -r _ _ _ c g <<<"${res[$k]}"
  printf '%-24s | %7s + %7s = %7s\n' "$k" "$c" "$g" "$(awk -v a="$c" -v b="$g" 'BEGIN { printf "%.3f", a + b }')"
done
