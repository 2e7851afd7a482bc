#!/usr/bin/env bash
# The one start command on a fresh machine: install everything, migrate, provision the demo application, then start
# the whole fleet in the foreground; once every host answers /readyz the fleet prints how to sign in through each
# flow and get a token, and how a second terminal gets the project's Node and pnpm (`pnpm start --demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/use-node.sh   # Node 24 first on PATH for bootstrap and the fleet
bash scripts/bootstrap.sh
exec pnpm -s start --demo
