"""Fixtures for the education tests: the seed pages, when they are beside the project."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# ../shared/seeds beside the repository (a worktree sits one level deeper)
CANDIDATES = [REPO.parent / "shared" / "seeds", REPO.parent.parent / "shared" / "seeds"]


@pytest.fixture(scope="session")
def seed_files() -> list[Path]:
    for d in CANDIDATES:
        files = sorted(d.glob("*.txt")) if d.is_dir() else []
        if files:
            return files
    pytest.skip("seed pages not found in ../shared/seeds (the tests read them from there)")
