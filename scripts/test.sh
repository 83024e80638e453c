#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite (lint and types included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -n 2 --dist loadgroup "$@"
