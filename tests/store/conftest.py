"""Store fixtures: each store test runs on a SQLite file and on PostgreSQL (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chukker.store import EventStore, open_store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: Any, tmp_path: Path) -> Iterator[EventStore]:
    if request.param == "sqlite":
        s = open_store(tmp_path / "store.sqlite3")
        yield s
        s.close()
        return
    name = request.getfixturevalue("pg_schema")
    s = open_store(request.getfixturevalue("pg_url"), pg_schema=name)
    yield s
    s.close()
