#!/usr/bin/env bash
# Creates .venv and installs the project (Cython engines and protobuf stubs are built by the
# install). Re-installs only when a build input changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null; then python=$candidate; break; fi
  done
fi
[ -n "$python" ] || { echo "error: Python 3.11 is required" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi

stamp=.venv/.arena-build-stamp
inputs=$(cat pyproject.toml setup.py proto/arena/v1/*.proto engines/arena_engines/*.pyx engines/arena_engines/*.pxd arena_server/*.pyx \
         | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$inputs" ]; then
  echo "installing Arena into .venv (first run or build inputs changed)..." >&2
  .venv/bin/python -m pip install --quiet --upgrade pip
  # hanabi-learning-environment (a test dependency) builds with CMake, whose release 4 refuses its
  # cmake_minimum_required unless told which policy version to assume.
  CMAKE_POLICY_VERSION_MINIMUM=3.5 .venv/bin/python -m pip install --quiet -e ".[test,llm]"
  # santorinai (the Santorini board GameBench wraps; tests/engines/test_santorini_santorinai.py) without
  # its GUI dependency, PySimpleGUI, whose licence since version 5 is not an open one; the board needs none.
  .venv/bin/python -m pip install --quiet --no-deps "santorinai>=1.3"
  echo "$inputs" > "$stamp"
fi
