"""Fixtures of the operations tests: the live-service fixtures of tests/web, reused."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chukker.config import Settings

_spec = importlib.util.spec_from_file_location(
    "_chukker_web_fixtures", Path(__file__).parents[1] / "web" / "conftest.py")
assert _spec is not None and _spec.loader is not None
web = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = web
_spec.loader.exec_module(web)

header = web.header
db_path = web.db_path
make_match = web.make_match
sse = web.sse
post = web.post
backdate = web.backdate
Match = web.Match
SSE = web.SSE
post_event = web.post_event
ORGANISER_AUTH = web.ORGANISER_AUTH


class OpsServer(web.LiveServer):  # type: ignore[misc,name-defined]
    """A live server (open mode) with ``settings``."""

    def __init__(self, store: Any, settings: Settings | None = None, **options: Any) -> None:
        super().__init__(store, **{**web.OPEN, "settings": settings, **options})


@pytest.fixture
def ops_server(db_path: Path) -> Iterator[Any]:
    with OpsServer(db_path) as s:
        yield s


@pytest.fixture
def ops_factory() -> Any:
    return OpsServer
