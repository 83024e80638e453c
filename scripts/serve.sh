#!/usr/bin/env bash
# Sets everything up, then starts the web app on an embedded SQLite database with demo content.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/chukker serve "$@"
