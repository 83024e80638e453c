#!/usr/bin/env bash
# Sets everything up, then starts the web app on an embedded SQLite database with demo content
# (it passes --demo; plain `chukker serve` never seeds any):
# a match ready to start, a finished match, a tournament (the worked example, final still to play), and the rule pages (imported from the seed
# documents in ../shared/seeds when they are there; chukker ships none of their text).
# The rulebook database is the user's own (its data folder, or $CHUKKER_RULES_DB), the one
# `chukker rules ...` uses from any folder; importing the same seeds again changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if compgen -G "../shared/seeds/*.txt" >/dev/null; then
  .venv/bin/chukker rules import ../shared/seeds/*.txt >/dev/null || true
fi
echo "serve.sh: a DEMO: chukker serve --demo --open seeds demo content (a match to start, a finished"
echo "serve.sh: match, the example tournament) into an empty database; anyone on the network may"
echo "serve.sh: create matches (rate-limited). For a real event run 'chukker serve' without --demo"
echo "serve.sh: or --open: it seeds nothing and prints the organiser token."
exec .venv/bin/chukker serve --demo --open "$@"
