"""Fixtures shared by the test folders: a throw-away schema on a real PostgreSQL, and
Debian's chromium driven by Playwright."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import settings
from tests.ports import free_port

# Tests never assert a timing: Hypothesis's per-example deadline is one, and on a
# loaded machine it fails examples that are merely slow. Examples stay bounded by count.
settings.register_profile("chukker", deadline=None)
settings.load_profile("chukker")

PG_URL = os.environ.get("CHUKKER_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


def postgres_or_skip() -> str:
    import psycopg

    try:
        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as e:  # noqa: BLE001 - any driver's error: no server to test with
        if os.environ.get("CHUKKER_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"CHUKKER_REQUIRE_POSTGRES=1 but {PG_URL} is unreachable: {e}")
        pytest.skip(f"PostgreSQL tests need a server at {PG_URL} ({e.__class__.__name__})")
    return PG_URL


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A fresh schema name; dropped afterwards."""
    url = postgres_or_skip()
    name = "chukker_t_" + uuid.uuid4().hex[:12]
    yield name
    from chukker.store.postgres import PostgresStore

    s = PostgresStore(url, schema=name)
    s.drop_schema()
    s.close()


@pytest.fixture
def pg_url() -> str:
    """The test PostgreSQL's URL (skips, or fails under CHUKKER_REQUIRE_POSTGRES=1)."""
    return postgres_or_skip()


CHROMIUM = "/usr/bin/chromium"
#: how the browser tests start chromium (no sandbox as root, nothing fetched from outside)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium under Playwright (skips, or fails under CHUKKER_REQUIRE_BROWSER=1)."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"CHUKKER_REQUIRE_BROWSER=1 but {CHROMIUM} is missing")
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def serve_asgi() -> Iterator[Callable[[Any], str]]:
    """Serve an ASGI app with uvicorn in a thread on a free port; gives its base URL.
    Every app served is stopped at the end of the module."""
    import threading
    import time

    import uvicorn

    running: list[tuple[Any, threading.Thread]] = []

    def serve(app: Any) -> str:
        port = free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                               log_level="warning"))
        th = threading.Thread(target=server.run, daemon=True)
        th.start()
        running.append((server, th))
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.05)
        return f"http://127.0.0.1:{port}"

    yield serve
    for server, th in running:
        server.should_exit = True
        th.join(timeout=5)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` the tests of one ``xdist_group`` (the browser, the
    wheel's build, the shared PostgreSQL database) must share a worker: pytest-xdist tags
    their node ids with ``@group``. A pytest that keeps its node ids elsewhere (9.2) would
    spread them silently, build the wheel twice and run the browser tests side by side:
    say so instead."""
    if not getattr(config.option, "loadgroup", False):
        return
    lost = [i.nodeid for i in items
            if i.get_closest_marker("xdist_group") is not None and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(f"xdist_group is not applied to {lost[0]} and "
                                f"{len(lost) - 1} more: see the pytest pin in pyproject.toml")
