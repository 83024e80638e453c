"""The plain wheel build that ``tests/ops/test_wheel.py`` checks, as a command too.

``scripts/test.sh`` starts it in the background before pytest (``python -m
tests.wheel_build DIR``), so the build's half a minute of compiling runs beside the first
tests instead of holding one worker; the wheel's fixture then waits for ``DIR/rc`` and takes
``DIR/dist/chukker-*.whl``. Run alone, the fixture builds it itself, the same way.

The build is what ``pip install .`` does (the engine compiled by mypyc, at ``-O0``: what is
checked is that a plain build compiles and packs the engine, not its speed), from a copy of
the work tree, offline, with the setuptools of the running venv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def clean_env() -> dict[str, str]:
    """The environment without chukker's settings or another venv's."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHUKKER_", "PYTHON", "VIRTUAL_ENV"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def build(out: Path) -> Path:
    """Copy the work tree under ``out`` and build its wheel into ``out/dist``; the wheel."""
    src = out / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
        ".hypothesis", "*.sqlite3*", "node_modules"))
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out / "dist"), str(src)],
        cwd=out, env={**clean_env(), "CHUKKER_MYPYC_OPT": "0"}, capture_output=True,
        text=True, timeout=600, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"pip wheel failed:\n{p.stdout}\n{p.stderr}")
    wheels = list((out / "dist").glob("chukker-*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected one wheel, found {wheels}")
    shutil.rmtree(src, ignore_errors=True)
    return wheels[0]


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    try:
        build(out)
        rc = 0
    except Exception as e:  # noqa: BLE001 - any failure is written for the fixture to show
        (out / "error").write_text(str(e), encoding="utf-8")
        rc = 1
    (out / "rc").write_text(str(rc), encoding="utf-8")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
