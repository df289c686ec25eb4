#!/usr/bin/env bash
# make bench-scale: does docsapi's cost stay flat as an organization grows?
# Seeds two databases with bench/seed (SMALL and LARGE spaces, 100 nested
# collections, a member of role read with team and direct grants, and
# readers who see 1%, 10% and 100% of the spaces), serves
# both at once on 127.0.0.1, and measures each request against both,
# alternating small and large ROUNDS times (the machine is shared: the
# best p50 of each side counts). Prints one table:
#
#   measure | small | large | ratio | target | verdict
#
# where ratio is large p50 / small p50 (target: at most 1.2), then the
# durable create (both sizes) against the bare chi + SQLite insert
# (bench/bare, synchronous=FULL; ratio of throughputs, target at least 0.8)
# and the large server's peak RSS (/proc VmHWM, target under 200 MB).
#
#   bench/scale.sh                                  # 10,000 and 1,000,000 spaces
#   SCALE_LARGE=100000 DURATION=2s ROUNDS=1 bench/scale.sh   # a quick check
#   CONC=8 DURATION=5s WARMUP=1s ROUNDS=2 bench/scale.sh
#   ONLY="get_reader page_reader" bench/scale.sh    # some measures (keys below)
#
# Extra rows (GraphQL against REST, search over 100,000
# pages): when bench/scale-extra.sh exists and is executable it runs last,
# with the environment below exported, and prints its rows on stdout, one
# per line, tab-separated, in this table's format:
#
#   measure<TAB>a<TAB>b<TAB>ratio<TAB>target<TAB>verdict
#
# (a and b are its two figures, e.g. GraphQL and REST req/s; target such as
# ">= 0.6" or "< 20 ms"; verdict "ok" or "BELOW"). Exported: WORK (a
# temporary folder, removed at the end), BIN (built docsapi, load, seed,
# bare), SMALL_API and LARGE_API (host:port), SMALL_SEED and LARGE_SEED (the
# seeder's JSON lines), DURATION, WARMUP, CONC, ROUNDS.
set -euo pipefail
# DOCSAPI_FLAGS: more flags for docsapi serve (e.g. --group-commit=false);
# EXTRA=0 leaves the extra rows (bench/scale-extra.sh) out.
DOCSAPI_FLAGS=${DOCSAPI_FLAGS:-}
cd "$(dirname "$0")/.."

SMALL=${SCALE_SMALL:-10000}
LARGE=${SCALE_LARGE:-1000000}
COLLECTIONS=${COLLECTIONS:-100}
MEMBERS=${MEMBERS:-1000}
TEAMS=${TEAMS:-10}
DURATION=${DURATION:-4s}
WARMUP=${WARMUP:-1s}
CONC=${CONC:-4}
ROUNDS=${ROUNDS:-2}
GO=${GO:-go}

WORK=$(mktemp -d /tmp/docsapi-bench-scale.XXXXXX)
BIN=$WORK/bin
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

started=$(date +%s)
echo "building into $BIN ..." >&2
mkdir -p "$BIN"
for c in cmd/docsapi bench/bare bench/load bench/seed/cmd/seed; do $GO build -o "$BIN/$(basename "$c")" "./$c"; done

field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p" <<<"$2"; }

seed() { # N -> JSON line
  local t0=$(date +%s.%N) out
  out=$("$BIN/seed" --db "$WORK/$1.db" --members "$MEMBERS" --teams "$TEAMS" --spaces "$1" --collections "$COLLECTIONS" --installation-every 100)
  echo "seeded $1 spaces in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2
  echo "$out"
}
SMALL_SEED=$(seed "$SMALL")
LARGE_SEED=$(seed "$LARGE")

wait_for() { # FILE PATTERN
  for _ in $(seq 1 600); do
    if grep -q "$2" "$1" 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "server did not start; its output:" >&2; cat "$1" >&2; exit 1
}

serve() { # NAME N -> sets api_pid, api
  "$BIN/docsapi" serve --addr 127.0.0.1:0 --db "$WORK/$2.db" --log-level warn --rate-limit 1000000000 $DOCSAPI_FLAGS \
    >"$WORK/$1.out" 2>"$WORK/$1.log" &
  api_pid=$!
  pids+=("$api_pid")
  wait_for "$WORK/$1.out" 'listening on'
  api=$(sed -n 's/^listening on http:\/\/\([^ ]*\).*/\1/p' "$WORK/$1.out")
}
serve small "$SMALL"; SMALL_PID=$api_pid; SMALL_API=$api
serve large "$LARGE"; LARGE_PID=$api_pid; LARGE_API=$api

# The measures: load arguments for one side, written against $api and $s
# (that side's seed line); the move runs one client (each move must change
# something).
declare -A label args
add() { label[$1]=$2; args[$1]=$3; }
A='-H "Authorization: Bearer $(field token "$s")"'
R='-H "Authorization: Bearer $(field reader_token "$s")"'
add get_admin "GET /v1/spaces/{id}, admin" "$A"' -url "http://$api/v1/spaces/$(field space "$s")"'
add get_reader "GET /v1/spaces/{id}, read member" "$R"' -url "http://$api/v1/spaces/$(field space "$s")"'
add page_admin "100-space page, admin" "$A"' -url "http://$api/v1/orgs/$(field organization "$s")/spaces?limit=100"'
add page_reader "100-space page, read member" "$R"' -url "http://$api/v1/orgs/$(field organization "$s")/spaces?limit=100"'
WRITE='-before-method PATCH -before-body "{\"title\":\"renamed\"}" -before-H "Authorization: Bearer $(field token "$s")" -before-url "http://$api/v1/spaces/$(field move_space "$s")"'
add page_admin_w "100-space page right after a write, admin" "$A $WRITE"' -url "http://$api/v1/orgs/$(field organization "$s")/spaces?limit=100"'
add page_reader_w "100-space page right after a write, read member" "$R $WRITE"' -url "http://$api/v1/orgs/$(field organization "$s")/spaces?limit=100"'
# Readers who see 1%, 10% and 100% of the spaces (bench/seed's
# reader shapes), each page alone and right after a write.
for shape in few:1% tenth:10% all:100%; do
  k=${shape%%:*}; pct=${shape#*:}
  T='-H "Authorization: Bearer $(field reader_'$k'_token "$s")"'
  add "page_$k" "100-space page, reader who sees $pct" "$T"' -url "http://$api/v1/orgs/$(field organization "$s")/spaces?limit=100"'
  add "page_${k}_w" "100-space page right after a write, reader who sees $pct" "$T $WRITE"' -url "http://$api/v1/orgs/$(field organization "$s")/spaces?limit=100"'
  # The other lists a member reads, each by (or about) the same reader.
  add "cols_$k" "100-collection page, reader who sees $pct" "$T"' -url "http://$api/v1/orgs/$(field organization "$s")/collections?limit=100"'
  add "mspaces_$k" "a member's 100 spaces (admin asks), member sees $pct" "$A"' -url "http://$api/v1/orgs/$(field organization "$s")/members/$(field reader_'$k' "$s")/spaces?limit=100"'
  add "search_$k" "organization search, reader who sees $pct" "$T"' -url "http://$api/v1/orgs/$(field organization "$s")/search?query=common"'
done
# A member's spaces asked with an installation token installed on one space
# in 100 (in creation order): about the read member who sees every space,
# and about the admin.
I='-H "Authorization: Bearer $(field installation_token "$s")"'
add mspaces_inst_all "a member's 100 spaces, installation token on 1%, member sees 100%" "$I"' -url "http://$api/v1/orgs/$(field organization "$s")/members/$(field reader_all "$s")/spaces?limit=100"'
add mspaces_inst_admin "a member's 100 spaces, installation token on 1%, about the admin" "$I"' -url "http://$api/v1/orgs/$(field organization "$s")/members/$(field user "$s")/spaces?limit=100"'
# ... and about the reader who sees 1% (the side that names fewer spaces is
# read first, the other checked by primary key).
add mspaces_inst_few "a member's 100 spaces, installation token on 1%, member sees 1%" "$I"' -url "http://$api/v1/orgs/$(field organization "$s")/members/$(field reader_few "$s")/spaces?limit=100"'
add create_top "create a space, top level" "$A"' -method POST -expect 201 -body "{\"title\":\"bench\"}" -url "http://$api/v1/orgs/$(field organization "$s")/spaces"'
add create_in "create a space in a collection" "$A"' -method POST -expect 201 -body "{\"title\":\"bench\",\"parent\":\"$(field collection "$s")\"}" -url "http://$api/v1/orgs/$(field organization "$s")/spaces"'
add move "move a space between collections (1 client)" "$A"' -c 1 -method POST -body "{\"parent\":\"$(field collection "$s")\"}" -body2 "{\"parent\":\"$(field collection2 "$s")\"}" -url "http://$api/v1/spaces/$(field move_space "$s")/move"'
# Before a move run (instead of its warm-up): back to the top level, so
# that the first move of the run changes something.
declare -A reset
reset[move]="$A"' -c 1 -n 1 -method POST -body "{\"parent\":null}" -url "http://$api/v1/spaces/$(field move_space "$s")/move"'
ONLY=${ONLY:-"get_admin get_reader page_admin page_reader page_admin_w page_reader_w page_few page_few_w page_tenth page_tenth_w page_all page_all_w cols_few cols_tenth cols_all mspaces_few mspaces_tenth mspaces_all mspaces_inst_all mspaces_inst_admin mspaces_inst_few search_few search_tenth search_all create_top create_in move"}

# measure SIDE KEY -> "rps p50 p99" (load's figures); nothing on failure.
measure() {
  local side=$1 key=$2 api s out c="-c $CONC"
  if [ "$side" = small ]; then api=$SMALL_API; s=$SMALL_SEED; else api=$LARGE_API; s=$LARGE_SEED; fi
  [[ "${args[$key]}" == *"-c 1 "* ]] && c=""
  if [ -n "${reset[$key]:-}" ]; then
    eval "set -- ${reset[$key]}"
    "$BIN/load" -warmup 0 "$@" >/dev/null 2>&1 || true
    eval "set -- $c ${args[$key]}"
  else
    eval "set -- $c ${args[$key]}"
    "$BIN/load" -d "$WARMUP" -warmup 0 "$@" >/dev/null 2>&1 || true
  fi
  out=$("$BIN/load" -tsv -d "$DURATION" -warmup 0 "$@") || {
    echo "load failed ($side $key):" >&2; "$BIN/load" -c 1 -n 1 -warmup 0 "$@" >&2 || true; return 0; }
  cut -f1-3 <<<"$out"
}

declare -A best
keep_p50() { # KEY "rps p50 p99": the lowest p50 wins
  [ -n "$2" ] || { echo "no figures for $1" >&2; exit 1; }
  local old=${best[$1]:-}
  if [ -z "$old" ] || awk -v a="$(cut -f2 <<<"$2")" -v b="$(cut -f2 <<<"$old")" 'BEGIN { exit !(a < b) }'; then best[$1]=$2; fi
}
keep_rps() { # KEY "rps p50 p99": the highest throughput wins
  [ -n "$2" ] || { echo "no figures for $1" >&2; exit 1; }
  local old=${best[$1]:-}
  if [ -z "$old" ] || awk -v a="$(cut -f1 <<<"$2")" -v b="$(cut -f1 <<<"$old")" 'BEGIN { exit !(a > b) }'; then best[$1]=$2; fi
}

echo "measuring $SMALL and $LARGE spaces side by side, $ROUNDS rounds ..." >&2
for _ in $(seq 1 "$ROUNDS"); do
  for k in $ONLY; do
    keep_p50 "small_$k" "$(measure small "$k")"
    keep_p50 "large_$k" "$(measure large "$k")"
  done
done

# The durable create against the bare insert, alternating, on each
# database (bench/bare holds its own table of MEMBERS rows).
"$BIN/bare" --addr 127.0.0.1:0 --db "$WORK/bare.db" --rows "$MEMBERS" >"$WORK/bare.out" 2>&1 &
pids+=($!)
wait_for "$WORK/bare.out" '"addr"'
BARE_API=$(field addr "$(cat "$WORK/bare.out")")
if [[ " $ONLY " == *" create_top "* ]]; then
  echo "measuring the durable create against bare, $ROUNDS rounds ..." >&2
  for _ in $(seq 1 "$ROUNDS"); do
    for side in small large; do
      keep_rps "create_$side" "$(measure "$side" create_top)"
      "$BIN/load" -c "$CONC" -d "$WARMUP" -warmup 0 -method PUT -body '{"title":"bench"}' -expect 201 -url "http://$BARE_API/items" >/dev/null 2>&1 || true
      keep_rps "create_bare_$side" "$("$BIN/load" -tsv -c "$CONC" -d "$DURATION" -warmup 0 -method PUT -body '{"title":"bench"}' -expect 201 -url "http://$BARE_API/items" | cut -f1-3)"
    done
  done
fi

rows=()
row() { rows+=("$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$@")"); }
for k in $ONLY; do
  read -r _ sp50 _ <<<"${best[small_$k]}"
  read -r _ lp50 _ <<<"${best[large_$k]}"
  ratio=$(awk -v a="$lp50" -v b="$sp50" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.2 ? "ok" : "ABOVE") }')
  row "${label[$k]}, p50 ms" "$sp50" "$lp50" "$ratio" "<= 1.2" "$ok"
done
for side in small large; do
  [ -n "${best[create_$side]:-}" ] || continue
  n=$SMALL; [ "$side" = large ] && n=$LARGE
  a=$(cut -f1 <<<"${best[create_$side]}"); b=$(cut -f1 <<<"${best[create_bare_$side]}")
  ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  row "durable create req/s: docsapi ($n spaces) | bare insert" "$a" "$b" "$ratio" ">= 0.8" "$(awk -v r="$ratio" 'BEGIN { print (r >= 0.8 ? "ok" : "BELOW") }')"
done
hwm=$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$LARGE_PID/status")
row "peak RSS MB serving $LARGE spaces (VmHWM) | limit" "$hwm" 200 "-" "< 200" "$(awk -v m="$hwm" 'BEGIN { print (m < 200 ? "ok" : "ABOVE") }')"

if [ "${EXTRA:-1}" = 1 ] && [ -x bench/scale-extra.sh ]; then
  echo "running bench/scale-extra.sh ..." >&2
  export WORK BIN SMALL_API LARGE_API SMALL_SEED LARGE_SEED DURATION WARMUP CONC ROUNDS
  while IFS= read -r line; do [ -n "$line" ] && rows+=("$line"); done < <(bench/scale-extra.sh)
fi

echo
echo "docsapi at $SMALL (small) and $LARGE (large) spaces, $COLLECTIONS collections; $(nproc) shared cores, concurrency $CONC, $DURATION per run, best of $ROUNDS alternating rounds, $($GO env GOVERSION); $(( $(date +%s) - started )) s in all"
printf '%-66s %10s %10s %6s %8s %s\n' measure "small/a" "large/b" ratio target verdict
for r in "${rows[@]}"; do
  IFS=$'\t' read -r m a b ratio t ok <<<"$r"
  printf '%-66s %10s %10s %6s %8s %s\n' "$m" "$a" "$b" "$ratio" "$t" "$ok"
done
