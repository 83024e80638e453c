#!/usr/bin/env bash
# Pins every dependency, with hashes, from pyproject.toml:
#   requirements.lock      what `chukker` needs to run
#   requirements-dev.lock  the same plus the test tools (scripts/setup.sh and CI install it)
# Run after changing dependencies in pyproject.toml, and commit both files:
#   bash scripts/lock.sh            keep the pinned versions where they still fit
#   bash scripts/lock.sh --upgrade  move every pin to the newest release
# Needs uv (on PATH, in .venv, or installed here into a throw-away venv) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
UV=${UV:-}
if [ -z "$UV" ]; then
  if command -v uv >/dev/null 2>&1; then UV=uv
  elif [ -x .venv/bin/uv ]; then UV=.venv/bin/uv
  else
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    "$PY" -m venv "$tmp/venv"
    "$tmp/venv/bin/python" -m pip install -q uv
    UV="$tmp/venv/bin/uv"
  fi
fi
digest=$("$PY" scripts/deps_hash.py)
lock() {  # lock OUTPUT [uv args...]
  local out=$1; shift
  "$UV" pip compile pyproject.toml --generate-hashes --universal --python-version 3.11 \
    --custom-compile-command "bash scripts/lock.sh" --quiet -o "$out" "$@"
  { echo "# pyproject-deps-sha256: $digest"; grep -v '^# pyproject-deps-sha256: ' "$out"; } \
    > "$out.tmp"
  mv "$out.tmp" "$out"
}
lock requirements.lock "$@"
lock requirements-dev.lock --extra dev "$@"
echo "lock: requirements.lock and requirements-dev.lock pinned from pyproject.toml ($digest)"
