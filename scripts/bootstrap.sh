#!/usr/bin/env bash
# Brings a fresh machine (Node and npm only) to a working tree: the project's Node (scripts/use-node.sh: Node 24 from
# the npm registry when the machine's is older), pnpm, PostgreSQL and Redis running, dependencies installed, Prisma
# client generated, database migrated. Idempotent; used by up.sh, test.sh and .ci/run (which source use-node.sh
# themselves too, so what they run after it runs on the same Node).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh

log() { printf '==> %s\n' "$*" >&2; }
log "node $(node --version) ($(command -v node))"

if ! command -v pnpm >/dev/null 2>&1; then
  log "installing pnpm"
  npm install -g pnpm@10 >/dev/null
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq >/dev/null; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if ! pg_up; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then log "installing PostgreSQL"; apt_install postgresql; fi
  log "starting PostgreSQL"
  as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "PostgreSQL did not start" >&2; exit 1; }
fi

redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; }
if ! redis_up; then
  if ! command -v redis-server >/dev/null 2>&1; then log "installing Redis"; apt_install redis-server; fi
  log "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
  redis_up || { echo "Redis did not start" >&2; exit 1; }
fi

log "installing dependencies"
pnpm install --frozen-lockfile --reporter=append-only
log "generating the Prisma client"
pnpm -s db:generate >/dev/null
log "migrating ${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test}"
pnpm -s db:migrate >&2
