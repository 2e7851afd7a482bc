#!/usr/bin/env bash
# The one start command on a fresh machine: install everything, migrate, provision the demo application (printing
# how to sign in through each flow and get a token), then start the whole fleet in the foreground.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh   # Node 24 first on PATH for bootstrap, the demo and the fleet
bash scripts/bootstrap.sh
pnpm -s demo
exec pnpm -s start
