#!/usr/bin/env bash
# Installs what is needed, then runs the server on an embedded SQLite file (arena.db) with house
# agents ready, and its web front on port 8080 (printed; --http-port PORT for another, 0 for none).
# Extra arguments go to `arena-server serve` (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
web=(--http-port 8080)
for arg in "$@"; do
  case "$arg" in --http-port|--http-port=*) web=() ;; esac
done
exec .venv/bin/arena-server serve "${web[@]}" "$@"
