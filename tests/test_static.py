"""Lint and types are part of the tests: ruff over the code, mypy --strict over the package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.mypy_ahead import ROOT, command

#: how long the test waits for the run scripts/test.sh started (a cold run: about a minute)
AHEAD_WAIT_S = 600


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


def _mypy_ahead(folder: Path) -> tuple[int, str]:
    """The exit status and output of the run ``scripts/test.sh`` started in ``folder``."""
    rc = folder / "rc"
    deadline = time.monotonic() + AHEAD_WAIT_S
    while not rc.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"mypy started ahead in {folder} gave no answer in {AHEAD_WAIT_S} s")
        time.sleep(0.5)
    return int(rc.read_text(encoding="utf-8")), (folder / "out").read_text(encoding="utf-8")


@pytest.mark.xdist_group("static")
def test_mypy_strict_is_clean() -> None:
    ahead = os.environ.get("CHUKKER_TEST_MYPY_AHEAD")
    if ahead:  # started by scripts/test.sh beside the first tests
        code, said = _mypy_ahead(Path(ahead))
        assert code == 0, said
        return
    proc = subprocess.run(command(_tool("mypy")), cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
