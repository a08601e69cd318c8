#!/usr/bin/env bash
# Checks deploy/herald.service with systemd-analyze: verify must print
# nothing (an unknown key or system call group is only a warning to it), and
# the offline security review must rate the unit's exposure 2.0 or lower
# (0 is the most locked down, 10 the least). systemd need not be running.
#
#   deploy/check-systemd.sh          (make systemd-check)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-check: skipped: systemd-analyze is not installed (Debian's systemd package has it)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# verify wants ExecStart's binary to exist: the unit is checked with a
# binary built here in place of /usr/local/bin/herald.
CGO_ENABLED=0 go build -o "$tmp/herald" ./cmd/herald
sed "s#/usr/local/bin/herald#$tmp/herald#g" deploy/herald.service >"$tmp/herald.service"
out=$(systemd-analyze verify "$tmp/herald.service" 2>&1) || { echo "$out"; echo "systemd-check: FAIL: systemd-analyze verify"; exit 1; }
if [ -n "$out" ]; then
  echo "$out"
  echo "systemd-check: FAIL: systemd-analyze verify warned"
  exit 1
fi
echo "systemd-check: ok: systemd-analyze verify ($(systemd-analyze --version | head -n1))"
if ! sec=$(systemd-analyze security --offline=true --threshold=20 "$tmp/herald.service" 2>&1); then
  echo "$sec" | grep -v '✓'
  echo "systemd-check: FAIL: exposure above 2.0"
  exit 1
fi
echo "systemd-check: ok: $(echo "$sec" | grep 'Overall exposure')"
