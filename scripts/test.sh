#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite (lint and types included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The wheel's plain build (tests/ops/test_wheel.py) starts now, beside the first tests,
# rather than holding one worker for half a minute; its fixture waits for it.
ahead=$(mktemp -d "${TMPDIR:-/tmp}/chukker-wheel.XXXXXX")
setsid .venv/bin/python -m tests.wheel_build "$ahead" >/dev/null 2>&1 &
builder=$!
# whatever pytest ran, the build stops with it (its own process group) and leaves nothing
trap 'kill -- "-$builder" 2>/dev/null || true; rm -rf "$ahead"' EXIT
export CHUKKER_TEST_WHEEL_AHEAD="$ahead"
# One worker more than the machine has cores: many tests wait on servers they started
# (measured on 2 cores: the CPU was busy 55 % of the run with two workers).
workers=$(( $(nproc 2>/dev/null || echo 2) + 1 ))
status=0
.venv/bin/python -m pytest -n "$workers" --dist loadgroup "$@" || status=$?
exit "$status"
