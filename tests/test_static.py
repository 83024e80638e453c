"""Lint and types are part of the tests: ruff over the code, mypy --strict over the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the whole package: every concern, the web app included, is mypy --strict clean
STRICT = ["src/chukker"]


def _tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.exists() else shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    return found


@pytest.mark.xdist_group("static")
def test_ruff_is_clean() -> None:
    proc = subprocess.run(
        [_tool("ruff"), "check", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.xdist_group("static")
def test_mypy_strict_is_clean() -> None:
    proc = subprocess.run(
        [_tool("mypy"), "--strict", *STRICT], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
