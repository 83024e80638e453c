"""Fixtures of the operations tests: the live-service fixtures of tests/web, reused."""

from __future__ import annotations

import dataclasses
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


#: the scraper's secret of the test servers (setting ``metrics_token``): their clients
#: present it, as Prometheus would, so that ``/metrics`` and ``/readyz``'s checks answer
METRICS_TOKEN = "test-metrics-token-0123456789"
METRICS_AUTH = {"authorization": "Bearer " + METRICS_TOKEN}


class OpsServer(web.LiveServer):  # type: ignore[misc,name-defined]
    """A live server (open mode) with ``settings`` (the metrics token set); its
    ``client()`` is the operator's (it presents the metrics token)."""

    def __init__(self, store: Any, settings: Settings | None = None, **options: Any) -> None:
        settings = settings or Settings()
        if settings.metrics_token is None:
            settings = dataclasses.replace(settings, metrics_token=METRICS_TOKEN)
        super().__init__(store, **{**web.OPEN, "settings": settings, **options})

    def client(self) -> Any:
        c = super().client()
        c.headers.update(METRICS_AUTH)
        return c


@pytest.fixture
def ops_server(db_path: Path) -> Iterator[Any]:
    with OpsServer(db_path) as s:
        yield s


@pytest.fixture
def ops_factory() -> Any:
    return OpsServer


EXAMPLE_TOURNAMENT = Path(__file__).parents[2] / "examples" / "tournament" / "fall-classic.toml"


def seed_tournament(store: Any, played: tuple[str, ...] = ("a1", "b1")) -> str:
    """The example tournament uploaded into ``store`` as the officials' service does it,
    the example's records of ``played`` stored on their live matches, its results
    published and one committee move: a log of every kind but ``updated``. Its id."""
    import asyncio
    import datetime as dt

    from chukker.live import LiveService
    from chukker.live.tournaments import TournamentService
    from chukker.record import load_path as load_record
    from chukker.tournament.model import load_path
    from chukker.web.demo import _play

    async def go() -> str:
        t = load_path(EXAMPLE_TOURNAMENT)
        svc = TournamentService(LiveService(store))
        lt = (await svc.upload(load_path(EXAMPLE_TOURNAMENT), lambda _lt: True)).lt
        for mid in played:
            rp = t.record_path(t.matches[mid])
            assert rp is not None
            _play(t, store, lt.live[mid], load_record(rp), 1_000_000)
        await svc.refresh(lt)
        start = lt.t.matches["a3"].start
        await svc.move(lt, "a3", start + dt.timedelta(minutes=30) if start else None, None)
        return lt.id

    return asyncio.run(go())


@pytest.fixture(scope="session")
def tournament_seeder() -> Any:
    """:func:`seed_tournament`, for the tests of this folder."""
    return seed_tournament
