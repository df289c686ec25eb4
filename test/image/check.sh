#!/usr/bin/env bash
# Checks the container image `make image` built, without starting it (on
# these machines containers cannot start): its configuration (user,
# entrypoint, volume, health check, environment) and its files (only the
# static binary and the few files it needs), then runs the binary taken
# out of the image on the host, which a static binary allows.
#
#   test/image/check.sh [podman|docker] [IMAGE]
set -euo pipefail
engine="${1:-podman}"
image="${2:-docsapi:latest}"
fail() { echo "image check: $*" >&2; exit 1; }

config="$("$engine" image inspect "$image" --format '{{json .Config}}')"
echo "$config" | jq -e '.User == "65532:65532"' >/dev/null || fail "user is not 65532:65532: $config"
echo "$config" | jq -e '.Entrypoint == ["/usr/local/bin/docsapi"] and .Cmd == ["serve"]' >/dev/null || fail "entrypoint/cmd: $config"
echo "$config" | jq -e '.Volumes | has("/data")' >/dev/null || fail "no /data volume: $config"
health="$("$engine" image inspect "$image" --format '{{json .HealthCheck}}')"
echo "$health" | jq -e '.Test | index("healthcheck") != null' >/dev/null || fail "no health check: $health"
echo "$config" | jq -e '.Env | index("DOCSAPI_DB=/data/docsapi.db") != null' >/dev/null || fail "DOCSAPI_DB: $config"

dir="$(mktemp -d)"
trap 'rm -rf "$dir"; "$engine" rm -f docsapi-image-check >/dev/null 2>&1 || true' EXIT
"$engine" rm -f docsapi-image-check >/dev/null 2>&1 || true
"$engine" create --name docsapi-image-check "$image" >/dev/null
"$engine" export docsapi-image-check > "$dir/rootfs.tar"
files="$(tar -tf "$dir/rootfs.tar" | sed 's#^\./##; s#/$##' | grep -v '^$' | sort)"
want="$(printf '%s\n' data etc etc/group etc/passwd tmp usr usr/local usr/local/bin usr/local/bin/docsapi | sort)"
# The engine may add its own mount points (dev, proc, sys, run, etc/hosts...): only these may be added.
extra="$(comm -23 <(echo "$files") <(echo "$want") | grep -vE '^(dev|proc|sys|run|run/.*|etc/(hosts|hostname|resolv.conf)|\.dockerenv|\.containerenv)$' || true)"
missing="$(comm -13 <(echo "$files") <(echo "$want"))"
[ -z "$missing" ] || fail "missing from the image: $missing"
[ -z "$extra" ] || fail "unexpected in the image: $extra"
tar --numeric-owner -tvf "$dir/rootfs.tar" | grep -E ' \.?/?data/?$' | grep -q '65532/65532' || fail "/data is not owned by 65532: $(tar -tvf "$dir/rootfs.tar" | grep data)"

mkdir "$dir/root" && tar -xf "$dir/rootfs.tar" -C "$dir/root" usr/local/bin/docsapi 2>/dev/null || tar -xf "$dir/rootfs.tar" -C "$dir/root" ./usr/local/bin/docsapi
bin="$dir/root/usr/local/bin/docsapi"
if command -v file >/dev/null; then
  file "$bin" | grep -q 'statically linked' || fail "the binary is not static: $(file "$bin")"
fi
"$bin" version >/dev/null || fail "the image's binary does not run"
size="$(du -m "$dir/rootfs.tar" | cut -f1)"
echo "image check: $image ok (${size} MB; user 65532, /data volume, health check, static binary)"
