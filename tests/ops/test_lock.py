"""The lock files: made from pyproject.toml's dependencies, every pin with its hashes."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFRESH = "refresh the lock files: bash scripts/lock.sh (and commit them)"


def _name(req: str) -> str:
    return re.split(r"[\s<>=!~;\[]", req, maxsplit=1)[0].lower().replace("_", "-")


def pins(lock: Path) -> dict[str, list[str]]:
    """name -> the hashes of each pinned requirement."""
    out: dict[str, list[str]] = {}
    current = None
    for line in lock.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line)
        if m:
            current = m.group(1).lower().replace("_", "-")
            out[current] = []
        elif current and "--hash=sha256:" in line:
            out[current].append(line.split("--hash=sha256:")[1].split()[0])
    return out


@pytest.mark.parametrize(("lock", "extras"), [("requirements.lock", ()),
                                              ("requirements-dev.lock", ("dev",))])
def test_lock_is_made_from_pyproject_and_pins_with_hashes(lock: str,
                                                          extras: tuple[str, ...]) -> None:
    path = ROOT / lock
    digest = subprocess.run([sys.executable, str(ROOT / "scripts" / "deps_hash.py")],
                            capture_output=True, text=True, check=True).stdout.strip()
    recorded = re.search(r"^# pyproject-deps-sha256: (\w+)$", path.read_text(), re.M)
    assert recorded and recorded.group(1) == digest, \
        f"{lock} was made from other dependencies than pyproject.toml names: {REFRESH}"
    got = pins(path)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in extras:
        wanted += project["optional-dependencies"][extra]
    missing = sorted({_name(r) for r in wanted} - set(got))
    assert not missing, f"{lock} lacks {missing}: {REFRESH}"
    assert all(len(h) == 64 for hs in got.values() for h in hs)
    assert all(got.values()), "every pin carries its hashes"
