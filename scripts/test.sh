#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite (lint and types included).
set -euo pipefail
cd "$(dirname "$0")/.."
# Python may keep what it compiles (a machine may say otherwise): pytest's rewritten test
# modules and the package's bytecode are then compiled once, not again by each of the
# workers and by every server process the tests start (README "Figures": the suite's time).
unset PYTHONDONTWRITEBYTECODE
# Two slow checks run beside other work rather than each holding a worker, and their
# tests wait for the answers left in these folders: mypy --strict over the package
# (tests/test_static.py: a minute cold, as on a clean clone) starts once the locked
# dependencies are in, beside the engine's compilation (one core's work); the wheel's
# plain build (tests/ops/test_wheel.py: half a minute of compiling) beside the first tests.
ahead=$(mktemp -d "${TMPDIR:-/tmp}/chukker-wheel.XXXXXX")
typed=$(mktemp -d "${TMPDIR:-/tmp}/chukker-mypy.XXXXXX")
builder=0
checker=0
# whatever pytest ran, both stop with it (each its own process group) and leave nothing
trap 'for p in "$builder" "$checker"; do [ "$p" = 0 ] || kill -- "-$p" 2>/dev/null || true; done; rm -rf "$ahead" "$typed"' EXIT
bash scripts/setup.sh deps
setsid .venv/bin/python -m tests.mypy_ahead "$typed" >/dev/null 2>&1 &
checker=$!
bash scripts/setup.sh
setsid .venv/bin/python -m tests.wheel_build "$ahead" >/dev/null 2>&1 &
builder=$!
export CHUKKER_TEST_WHEEL_AHEAD="$ahead" CHUKKER_TEST_MYPY_AHEAD="$typed"
# One worker more than the machine has cores: many tests wait on servers they started
# (measured on 2 cores: the CPU was busy 55 % of the run with two workers, 64 % with
# three; four took longer than three and broke two timing tests, README "Figures").
workers=$(( $(nproc 2>/dev/null || echo 2) + 1 ))
status=0
.venv/bin/python -m pytest -n "$workers" --dist loadgroup "$@" || status=$?
exit "$status"
