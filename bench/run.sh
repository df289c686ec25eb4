#!/usr/bin/env bash
# Measures docsapi against a bare chi + SQLite server on this machine, over
# loopback, and prints a table of throughput, latency and the ratio to bare.
#
#   bench/run.sh                 # 10 s per measurement, 16 concurrent clients
#   DURATION=5s CONC=8 bench/run.sh
#   LEVELS="warn" bench/run.sh   # only with the request log off
#   ROUNDS=3 bench/run.sh        # best of 3 alternating runs (noisy machines)
#   COMPARE="spaces spaces_reader" bench/run.sh   # only some comparisons (keys below)
#
# docsapi runs twice: with its request log on (info, written to a file, as in
# production) and off (warn). Everything lives in a temporary folder that is
# removed at the end; both servers listen on 127.0.0.1 only.
set -euo pipefail
# DOCSAPI_FLAGS: more flags for docsapi serve (e.g. --group-commit=false).
DOCSAPI_FLAGS=${DOCSAPI_FLAGS:-}
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONC=${CONC:-16}
MEMBERS=${MEMBERS:-10000}
TEAMS=${TEAMS:-50}
SPACES=${SPACES:-10000}
LEVELS=${LEVELS:-"info warn"}
ROUNDS=${ROUNDS:-2}
GO=${GO:-go}

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building into $work ..." >&2
$GO build -o "$work/docsapi" ./cmd/docsapi
$GO build -o "$work/bare" ./bench/bare
$GO build -o "$work/load" ./bench/load
$GO build -o "$work/seed" ./bench/seed/cmd/seed

echo "seeding $MEMBERS members, $TEAMS teams, $SPACES spaces ..." >&2
seed=$("$work/seed" --db "$work/docsapi.db" --members "$MEMBERS" --teams "$TEAMS" --spaces "$SPACES")
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }
org=$(field organization "$seed")
token=$(field token "$seed")
reader_token=$(field reader_token "$seed")
space=$(field space "$seed")

# wait_for FILE PATTERN: until the server printed its address.
wait_for() {
  for _ in $(seq 1 200); do
    if grep -q "$2" "$1" 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "server did not start; its output:" >&2; cat "$1" >&2; exit 1
}

"$work/bare" --addr 127.0.0.1:0 --db "$work/bare.db" --rows "$MEMBERS" >"$work/bare.out" 2>&1 &
bare_pid=$!
pids+=($bare_pid)
wait_for "$work/bare.out" '"addr"'
bare_addr=$(field addr "$(cat "$work/bare.out")")
bare_id=$(field id "$(cat "$work/bare.out")")

start_docsapi() { # LEVEL -> sets api, api_pid
  # The rate limiter stays on (its cost is part of every request) with a
  # limit no run reaches.
  "$work/docsapi" serve --addr 127.0.0.1:0 --db "$work/docsapi.db" --log-level "$1" --rate-limit 1000000000 $DOCSAPI_FLAGS \
    >"$work/docsapi-$1.out" 2>"$work/docsapi-$1.log" &
  api_pid=$!
  pids+=($api_pid)
  wait_for "$work/docsapi-$1.out" 'listening on'
  api=$(sed -n 's/^listening on http:\/\/\([^ ]*\).*/\1/p' "$work/docsapi-$1.out")
}

# measure PID ARGS... -> "rps p50 p99 cpu": load's figures and the server's
# CPU time per request (from /proc: stable even when the machine is shared).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
measure() {
  local pid=$1 out t0 t1; shift
  "$work/load" -c "$CONC" -d "$WARMUP" -warmup 0 "$@" >/dev/null 2>&1 || true
  t0=$(cpu_ticks "$pid")
  out=$("$work/load" -tsv -c "$CONC" -d "$DURATION" -warmup 0 "$@") || {
    echo "load failed: $*" >&2; "$work/load" -c 1 -n 1 -warmup 0 "$@" >&2 || true; exit 1; }
  t1=$(cpu_ticks "$pid")
  awk -v o="$out" -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    split(o, f, "\t"); printf "%s\t%s\t%s\t%.3f\n", f[1], f[2], f[3], (b - a) / hz * 1000 / f[4] }'
}

auth="Authorization: Bearer $token"
rauth="Authorization: Bearer $reader_token"

# The comparisons: docsapi's request (load arguments) against the bare
# request of the same kind (get, list or create), with the target ratio.
# COMPARE picks some of them by key.
declare -A name api_args bare_kind
add() { name[$1]=$2; bare_kind[$1]=$3; api_args[$1]=$4; }
add get "GET /v1/orgs/{id} vs PK read" get '-H "$auth" -url "http://$api/v1/orgs/$org"'
add list "GET members?limit=100 ($MEMBERS) vs keyset page" list '-H "$auth" -url "http://$api/v1/orgs/$org/members?limit=100"'
add create "PUT /v1/orgs/{id}/teams vs insert" create '-H "$auth" -method PUT -body "{\"title\":\"bench\"}" -expect 201 -url "http://$api/v1/orgs/$org/teams"'
add space "GET /v1/spaces/{id} (admin) vs PK read" get '-H "$auth" -url "http://$api/v1/spaces/$space"'
add space_reader "GET /v1/spaces/{id} (role read) vs PK read" get '-H "$rauth" -url "http://$api/v1/spaces/$space"'
add spaces "GET org spaces?limit=100 (admin) vs keyset page" list '-H "$auth" -url "http://$api/v1/orgs/$org/spaces?limit=100"'
add spaces_reader "GET org spaces?limit=100 (role read) vs keyset" list '-H "$rauth" -url "http://$api/v1/orgs/$org/spaces?limit=100"'
COMPARE=${COMPARE:-"get list create space space_reader spaces spaces_reader"}
declare -A target=([get]=0.75 [list]=0.60 [create]=0.80)
declare -A bare_args=(
  [get]='-url "http://$bare_addr/items/$bare_id"'
  [list]='-url "http://$bare_addr/items?limit=100"'
  [create]='-method PUT -body "{\"title\":\"bench\"}" -expect 201 -url "http://$bare_addr/items"'
)
declare -A res

# keep KEY "rps p50 p99": remember the run with the best throughput.
keep() {
  local old=${res[$1]:-0}
  if awk -v a="${2%%$'\t'*}" -v b="${old%%$'\t'*}" 'BEGIN { exit !(a > b) }'; then res[$1]=$2; fi
}

# Each comparison alternates docsapi and bare, ROUNDS times, so that both
# see the same machine state; the best run of each counts.
for level in $LEVELS; do
  start_docsapi "$level"
  echo "measuring docsapi (log level $level) and bare, $ROUNDS rounds ..." >&2
  for _ in $(seq 1 "$ROUNDS"); do
    for k in $COMPARE; do
      keep "${level}_$k" "$(eval measure "$api_pid" "${api_args[$k]}")"
      keep "bare_${k}_$level" "$(eval measure "$bare_pid" "${bare_args[${bare_kind[$k]}]}")"
    done
  done
  kill "$api_pid"; wait "$api_pid" 2>/dev/null || true
done

echo
echo "docsapi vs bare chi+SQLite; $(nproc) cores, concurrency $CONC, $DURATION per run, best of $ROUNDS, $($GO env GOVERSION)"
printf '%-48s %-5s %8s %7s %7s %7s | %8s %7s %7s %7s | %5s %6s\n' comparison log "req/s" "p50 ms" "p99 ms" "cpu ms" "bare r/s" "p50 ms" "p99 ms" "cpu ms" ratio target
for level in $LEVELS; do
  for k in $COMPARE; do
    read -r a50 ap50 ap99 acpu <<<"${res[${level}_$k]}"
    read -r b50 bp50 bp99 bcpu <<<"${res[bare_${k}_${level}]}"
    ratio=$(awk -v a="$a50" -v b="$b50" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    t=${target[${bare_kind[$k]}]}
    ok=$(awk -v r="$ratio" -v t="$t" 'BEGIN { print (r >= t ? "ok" : "BELOW") }')
    printf '%-48s %-5s %8s %7s %7s %7s | %8s %7s %7s %7s | %5s %4s %s\n' "${name[$k]}" "$level" "$a50" "$ap50" "$ap99" "$acpu" "$b50" "$bp50" "$bp99" "$bcpu" "$ratio" "$t" "$ok"
  done
done
echo "cpu ms: server CPU time per request (user+system, from /proc), the figure least affected by other load on the machine."
