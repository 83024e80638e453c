"""Print a SHA-256 of pyproject.toml's dependency lists (the lock files record it).

``scripts/setup.sh`` compares it with the one in ``requirements-dev.lock`` to tell whether the
lock was made from the dependencies pyproject.toml names now.
"""

import hashlib
import json
import sys
import tomllib
from pathlib import Path

root = Path(__file__).resolve().parents[1]
project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
wanted = {k: project.get(k) for k in ("requires-python", "dependencies", "optional-dependencies")}
sys.stdout.write(hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest() + "\n")
