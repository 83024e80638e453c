#!/usr/bin/env bash
# Creates .venv (if missing) and installs chukker with its test tools from the lock file
# (requirements-dev.lock: every version pinned, every file's hash checked). Idempotent.
# If pyproject.toml names dependencies the lock does not know yet, installs the lock, then
# the new ones unpinned, and says so: `bash scripts/lock.sh` refreshes the lock.
# `setup.sh deps` stops once the locked dependencies are in (scripts/test.sh starts mypy
# then, beside the engine's compilation); run again without it, it does the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
phase=${1:-all}
PY=${PYTHON:-python3}
LOCK=requirements-dev.lock
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.chukker-installed
deps_stamp=.venv/.chukker-deps
stale() { [ ! -f "$1" ] || [ pyproject.toml -nt "$1" ] || [ "$LOCK" -nt "$1" ]; }
if stale "$stamp"; then
  pip=(.venv/bin/python -m pip -q --disable-pip-version-check)
  if [ -f "$LOCK" ]; then
    if stale "$deps_stamp"; then
      # uv (pinned in the lock with its hashes) installs the lock in seconds where pip
      # takes a minute; pip does it if uv cannot be had
      uvreq=$(mktemp)
      awk '/^uv==/{on=1; print; next} on && /^ /{print; next} {on=0}' "$LOCK" > "$uvreq"
      if [ -s "$uvreq" ] && "${pip[@]}" install --require-hashes -r "$uvreq" \
          && .venv/bin/uv pip install -q --python .venv/bin/python --compile-bytecode \
            --require-hashes -r "$LOCK"; then
        :
      else
        "${pip[@]}" install --require-hashes -r "$LOCK"
      fi
      rm -f "$uvreq"
      touch "$deps_stamp"
    fi
    want=$(.venv/bin/python scripts/deps_hash.py)
    have=$(sed -n 's/^# pyproject-deps-sha256: //p' "$LOCK")
    if [ "$want" = "$have" ]; then
      if [ "$phase" = deps ]; then
        exit 0  # the package itself (the engine compiled) on the next run
      fi
      # the build backend (setuptools) comes from the lock too: no download here
      "${pip[@]}" install --no-deps --no-build-isolation -e .
    else
      echo "setup: $LOCK was made from other dependencies than pyproject.toml names now;" \
        "installing the new ones unpinned (refresh the lock: bash scripts/lock.sh)" >&2
      "${pip[@]}" install --no-build-isolation -e '.[dev]'
    fi
  else
    echo "setup: no $LOCK; installing unpinned (make one: bash scripts/lock.sh)" >&2
    "${pip[@]}" install -e '.[dev]'
  fi
  .venv/bin/python -m pip check --disable-pip-version-check >/dev/null
  touch "$stamp"
fi
if [ "$phase" = deps ]; then
  exit 0
fi
# axe-core for the accessibility scan (tests/web/test_a11y.py), pinned with its integrity
# hash in tests/a11y/package-lock.json; needs npm (the scan skips, saying why, without it)
if [ ! -f tests/a11y/node_modules/axe-core/axe.min.js ]; then
  if command -v npm >/dev/null 2>&1; then
    npm ci --prefix tests/a11y --no-audit --no-fund --silent \
      || echo "setup: npm ci in tests/a11y failed; the accessibility scan will skip" >&2
  else
    echo "setup: npm not found; the accessibility scan (axe-core) will skip" >&2
  fi
fi
