"""``mypy --strict`` over the package, as a command whose answer a test reads later.

``scripts/test.sh`` starts it in the background before pytest (``python -m
tests.mypy_ahead DIR``): on a clean clone mypy has no cache and takes a minute, which now
runs beside the first tests instead of holding one worker. It writes mypy's output to
``DIR/out`` and then its exit status to ``DIR/rc``; ``tests/test_static.py`` waits for
``DIR/rc``. Run alone, the test runs mypy itself, with the same options (:func:`command`).

It starts while ``scripts/setup.sh`` may still compile the engine with mypyc, whose own
mypy run writes the tree's ``.mypy_cache`` with other options: so this run keeps its cache
in ``DIR/cache``, a copy of the tree's where there is one (a warm start on a machine that
ran it before).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the whole package: every concern, the web app included, is mypy --strict clean
STRICT = ["src/chukker"]


def command(mypy: str) -> list[str]:
    """``mypy`` (the executable), strict, over the package."""
    return [mypy, "--strict", *STRICT]


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "cache"
    if (ROOT / ".mypy_cache").is_dir():
        shutil.copytree(ROOT / ".mypy_cache", cache, dirs_exist_ok=True)
    mypy = str(Path(sys.executable).with_name("mypy"))
    p = subprocess.run([*command(mypy), "--cache-dir", str(cache)], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    (out / "out").write_text(p.stdout + p.stderr, encoding="utf-8")
    (out / "rc.tmp").write_text(str(p.returncode), encoding="utf-8")
    (out / "rc.tmp").replace(out / "rc")  # whole, or not there yet
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
