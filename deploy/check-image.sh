#!/usr/bin/env bash
# Builds the container image's final stage (the Dockerfile from "FROM scratch"
# on) with podman around a binary built here, since base images cannot be
# pulled on these machines, and checks what the image says and holds: the
# user, entrypoint, command, health check, volume, environment and labels,
# and that the binary copied out of it is static and runs `version`.
# Running a container is tried too; where the sandbox refuses it, that one
# step is reported as skipped with the reason.
#
#   deploy/check-image.sh            (make image-check)
#
# Needs podman (.ci/run installs Debian's). Exit 0 when every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "image-check: FAIL: $*" >&2; exit 1; }
pass() { echo "image-check: ok: $*"; }

command -v podman >/dev/null || fail "podman is not installed (apt-get install podman)"

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
BUILD_TIME=${BUILD_TIME:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
SOURCE=https://github.com/heraldhq/herald
TAG=localhost/herald-image-check:$$

ctx=$(mktemp -d)
cid=
cleanup() {
  [ -n "$cid" ] && podman rm -f "$cid" >/dev/null 2>&1 || true
  podman rmi -f "$TAG" >/dev/null 2>&1 || true
  rm -rf "$ctx"
}
trap cleanup EXIT

# The rootfs and volume the Dockerfile's build stage makes, made here.
mkdir -p "$ctx/rootfs/usr/local/bin" "$ctx/rootfs/etc/ssl/certs" "$ctx/rootfs/tmp" "$ctx/volume/data"
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-s -w -X main.version=$VERSION -X main.commit=$COMMIT -X main.buildTime=$BUILD_TIME" \
  -o "$ctx/rootfs/usr/local/bin/herald" ./cmd/herald
cp /etc/ssl/certs/ca-certificates.crt "$ctx/rootfs/etc/ssl/certs/"
chmod 1777 "$ctx/rootfs/tmp"
chmod 0700 "$ctx/volume/data"

# The final stage, its COPY --from=build lines made COPY from the context.
final=$(sed -n '/^FROM scratch$/,$p' Dockerfile)
[ -n "$final" ] || fail "the Dockerfile has no final stage starting FROM scratch"
echo "$final" | grep -q '^RUN' && fail "the final stage has a RUN line: scratch has no shell"
froms=$(echo "$final" | grep -c -- '--from=build' || true)
[ "$froms" = 2 ] || fail "the final stage has $froms COPY --from=build lines, want 2 (rootfs, and volume/ for /data)"
echo "$final" | sed -e 's#^COPY --from=build /rootfs/ /$#COPY rootfs/ /#' \
  -e 's#^COPY --from=build --chown=65532:65532 /volume/ /$#COPY --chown=65532:65532 volume/ /#' >"$ctx/Containerfile"
grep -q -- '--from=build' "$ctx/Containerfile" && fail "a COPY --from=build line of the final stage is not one this script knows"

# Docker's image format keeps HEALTHCHECK (the OCI format drops it); no
# intermediate images are kept.
podman build --quiet --layers=false --format docker --pull=never -f "$ctx/Containerfile" -t "$TAG" \
  --build-arg VERSION="$VERSION" --build-arg COMMIT="$COMMIT" --build-arg BUILD_TIME="$BUILD_TIME" "$ctx" >/dev/null
pass "built the final stage FROM scratch with podman $(podman version --format '{{.Client.Version}}')"

inspect() { podman image inspect --format "$1" "$TAG"; }
expect() { # what, got, want
  [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
  pass "$1: $2"
}
expect "user" "$(inspect '{{.Config.User}}')" "65532:65532"
expect "entrypoint" "$(inspect '{{json .Config.Entrypoint}}')" '["/usr/local/bin/herald"]'
expect "command" "$(inspect '{{json .Config.Cmd}}')" '["serve"]'
expect "health check" "$(inspect '{{json .Config.Healthcheck.Test}}')" '["CMD","/usr/local/bin/herald","healthcheck"]'
expect "volume" "$(inspect '{{json .Config.Volumes}}')" '{"/data":{}}'
expect "working directory" "$(inspect '{{.Config.WorkingDir}}')" "/data"
expect "exposed port" "$(inspect '{{json .Config.ExposedPorts}}')" '{"8080/tcp":{}}'
envs=$(inspect '{{range .Config.Env}}{{println .}}{{end}}')
for e in PATH=/usr/local/bin HERALD_ADDR=0.0.0.0:8080 HERALD_DATABASE_URL=sqlite:/data/herald.db; do
  grep -qx "$e" <<<"$envs" || fail "environment: no $e in $(echo $envs)"
done
pass "environment: herald on PATH, the database in /data, listening on 8080"
expect "label version" "$(inspect '{{index .Config.Labels "org.opencontainers.image.version"}}')" "$VERSION"
expect "label revision" "$(inspect '{{index .Config.Labels "org.opencontainers.image.revision"}}')" "$COMMIT"
expect "label source" "$(inspect '{{index .Config.Labels "org.opencontainers.image.source"}}')" "$SOURCE"

# What the image holds: its files, listed from its one layer.
cid=$(podman create "$TAG")
files=$(podman export "$cid" | tar -tvf - 2>/dev/null)
for f in usr/local/bin/herald etc/ssl/certs/ca-certificates.crt; do
  grep -q " $f\$" <<<"$files" || fail "the image has no /$f"
done
grep -Eq '^drwx------ 65532/65532 .* data/?$' <<<"$files" || fail "/data is not 0700 and owned by 65532: $(grep ' data/\?$' <<<"$files")"
pass "files: the binary, the CA certificates, /data (0700, 65532)"

podman cp "$cid:/usr/local/bin/herald" "$ctx/herald-out"
go version -m "$ctx/herald-out" | grep -q 'CGO_ENABLED=0' || fail "the binary was not built with CGO_ENABLED=0"
got=$("$ctx/herald-out" version --json)
grep -q "\"version\":\"$VERSION\"" <<<"$got" || fail "the binary copied out of the image printed $got, want version $VERSION"
grep -q "\"commit\":\"$COMMIT\"" <<<"$got" || fail "the binary copied out of the image printed $got, want commit $COMMIT"
pass "the binary copied out of the image is static and runs: $("$ctx/herald-out" version)"

# Running it: needs a runtime the sandbox allows.
if out=$(podman run --rm --network none "$TAG" version 2>&1); then
  grep -q "herald $VERSION" <<<"$out" || fail "podman run … version printed $out"
  pass "podman run: $out"
else
  echo "image-check: skipped: running a container here: $(tail -n1 <<<"$out")"
fi
echo "image-check: passed"
