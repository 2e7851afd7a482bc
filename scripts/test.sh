#!/usr/bin/env bash
# The one test command: installs everything on a fresh machine (including Debian's Chromium for the browser
# tests), then type-checks, lints, checks import cycles and runs every test against real PostgreSQL and Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh   # Node 24 first on PATH for bootstrap, pnpm, tsx and jest alike
bash scripts/bootstrap.sh
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
# A CJK font, so the zh-CN page screenshots show text rather than empty boxes.
[ -d /usr/share/fonts/truetype/wqy ] || missing+=(fonts-wqy-zenhei)
# The distributed-engine tests (scripts/engines) start their own Redis Cluster, Sentinel and PgBouncer.
command -v redis-sentinel >/dev/null 2>&1 || missing+=(redis-sentinel)
command -v pgbouncer >/dev/null 2>&1 || missing+=(pgbouncer)
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing ${missing[*]} (Debian packages) for the browser and engine tests" >&2
  as_root apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "==> static checks (tsc, biome, import cycles)" >&2
pnpm -s check
echo "==> tests" >&2
results=$(mktemp)
status=0
pnpm exec jest --ci --json --outputFile="$results" "$@" || status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
  if (r.numTotalTests === 0) process.exit(1);
' "$results" || status=1
exit $status
