"""Two servers on one PostgreSQL database behind a proxy: both ready, and an event
posted through one reaches the other's streams and metrics."""

from __future__ import annotations

from typing import Any

import pytest

from chukker.config import load
from chukker.store import open_store

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres-live")]


def test_two_servers_on_postgresql_are_ready_and_share_a_match(
        pg_url: str, pg_schema: str, ops_factory: Any, make_match: Any, post: Any,
        sse: Any) -> None:
    settings = load(file=None, env={"CHUKKER_TRUSTED_PROXIES": "127.0.0.1"})
    a_store = open_store(pg_url, pg_schema=pg_schema)
    b_store = open_store(pg_url, pg_schema=pg_schema)
    with ops_factory(a_store, settings) as a, ops_factory(b_store, settings) as b, \
            a.client() as ca, b.client() as cb:
        for c in (ca, cb):
            r = c.get("/readyz")
            assert r.status_code == 200, r.text
            assert r.json()["checks"]["horn_scheduler"] == "ok"
        m = make_match(ca)
        on_b = sse(b.url, m.id)
        on_b.next("state")
        assert post(ca, m, {"type": "bowl_in"}).status_code == 201
        got = on_b.next()
        assert got["id"] == "1"
        assert "chukker_fanout_seconds_count" in cb.get("/metrics").text
    a_store.close()
    b_store.close()
