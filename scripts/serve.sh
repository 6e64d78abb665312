#!/usr/bin/env bash
# Installs what is needed, then runs the server on an embedded SQLite file (arena.db) with house
# agents ready. Extra arguments go to `arena-server serve` (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
exec .venv/bin/arena-server serve "$@"
