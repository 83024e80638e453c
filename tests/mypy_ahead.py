"""``mypy --strict`` over the package, as a command whose answer a test reads later.

``scripts/test.sh`` starts it in the background before pytest (``python -m
tests.mypy_ahead DIR``): on a clean clone mypy has no cache and takes a minute, which now
runs beside the first tests instead of holding one worker. It writes mypy's output to
``DIR/out`` and then its exit status to ``DIR/rc``; ``tests/test_static.py`` waits for
``DIR/rc``. Run alone, the test runs mypy itself, the same way (:func:`command`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the whole package: every concern, the web app included, is mypy --strict clean
STRICT = ["src/chukker"]


def command() -> list[str]:
    """mypy of this venv, strict, over the package."""
    return [str(Path(sys.executable).with_name("mypy")), "--strict", *STRICT]


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(command(), cwd=ROOT, capture_output=True, text=True, check=False)
    (out / "out").write_text(p.stdout + p.stderr, encoding="utf-8")
    (out / "rc.tmp").write_text(str(p.returncode), encoding="utf-8")
    (out / "rc.tmp").replace(out / "rc")  # whole, or not there yet
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
