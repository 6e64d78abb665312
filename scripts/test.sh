#!/usr/bin/env bash
# Installs what is needed, then runs the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
scripts/test-tools.sh
exec .venv/bin/python -m pytest "$@"
