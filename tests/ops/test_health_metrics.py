"""/healthz, /readyz and /metrics (Prometheus) of a running server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from chukker.store import open_store


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def test_healthz_and_readyz_on_a_running_server(ops_server: Any) -> None:
    with ops_server.client() as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        r = c.get("/readyz")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["status"] == "ok"
        assert body["checks"]["database"].startswith("ok")
        assert body["checks"]["horn_scheduler"] == "ok"


def test_readyz_is_503_when_the_database_is_gone(ops_server: Any) -> None:
    svc = ops_server.app.state.service
    svc.store.close()  # a closed connection: every query fails
    with ops_server.client() as c:
        assert c.get("/healthz").status_code == 200
        r = c.get("/readyz")
        assert r.status_code == 503 and r.headers["retry-after"] == "5"
        assert r.json()["checks"]["database"].startswith("unreachable")


def test_readyz_sees_a_stuck_horn_scheduler(ops_server: Any, make_match: Any) -> None:
    from chukker.web.ops import health

    svc = ops_server.app.state.service

    class Timer:
        def __init__(self, when: float) -> None:
            self._when = when

        def cancelled(self) -> bool:
            return False

        def when(self) -> float:
            return self._when

    class Stuck:
        id = "stuck"
        timer = Timer(svc.loop.time() - 60)

    assert health.scheduler_problems(svc) == []
    svc._matches["stuck"] = Stuck()
    try:
        problems = health.scheduler_problems(svc)
        assert problems and "overdue" in problems[0]
        with ops_server.client() as c:
            assert c.get("/readyz").status_code == 503
    finally:
        del svc._matches["stuck"]


def test_metrics_during_a_match_have_the_horn_lateness_histogram_filled(
        db_path: Path, header: Any, backdate: Any, ops_factory: Any, sse: Any) -> None:
    store = open_store(db_path)
    mid = backdate(store, header, ago_ms=450_000 - 2500)  # the period ends in 2.5 s
    store.close()
    with ops_factory(db_path) as srv, srv.client() as c:
        before = c.get("/metrics").text
        s = sse(srv.url, mid)
        s.next("state")
        during = c.get("/metrics").text
        assert value(during, "chukker_streams", kind="api") == \
            value(before, "chukker_streams", kind="api") + 1
        deadline = time.monotonic() + 20
        while True:  # the end-of-period horn sounds during the match
            after = c.get("/metrics").text
            if value(after, "chukker_horn_lateness_seconds_count") > \
                    value(before, "chukker_horn_lateness_seconds_count"):
                break
            assert time.monotonic() < deadline, "no horn within 20 s"
            time.sleep(0.1)
        auth = {"authorization": f"Bearer tk-{mid}"}
        r = c.post(f"/api/matches/{mid}/events", headers=auth,
                   json={"command_id": "g1", "event": {"type": "goal", "team": "A",
                                                       "player": 1}})
        assert r.status_code in (201, 409), r.text
        c.post(f"/api/matches/{mid}/events", headers={"authorization": "Bearer wrong"},
               json={"command_id": "x", "event": {"type": "whistle"}})
        after = c.get("/metrics").text
    assert value(after, "chukker_horn_lateness_seconds_bucket", le="+Inf") >= 1
    assert value(after, "chukker_horns_total") >= 1
    posted = sum(v for (n, _), v in samples(after).items()
                 if n == "chukker_event_post_seconds_count")
    assert posted >= 2
    assert value(after, "chukker_refusals_total", code="bad_token") >= 1
    assert value(after, "chukker_fanout_seconds_count") >= 1


def test_store_appends_and_event_posts_are_timed(ops_server: Any, make_match: Any,
                                                 post: Any) -> None:
    with ops_server.client() as c:
        before = c.get("/metrics").text
        m = make_match(c)
        assert post(c, m, {"type": "bowl_in"}).status_code == 201
        assert post(c, m, {"type": "goal", "team": "Z", "player": 1}).status_code >= 400
        after = c.get("/metrics").text
    assert value(after, "chukker_store_append_seconds_count", backend="sqlite") == \
        value(before, "chukker_store_append_seconds_count", backend="sqlite") + 1
    assert value(after, "chukker_event_post_seconds_count", status="201") == \
        value(before, "chukker_event_post_seconds_count", status="201") + 1
    assert value(after, "chukker_events_total") == value(before, "chukker_events_total") + 1
    refusals = [k for k in samples(after) if k[0] == "chukker_refusals_total"]
    assert refusals


def test_stream_kind_comes_from_the_page_that_opened_it(ops_server: Any, make_match: Any) -> None:
    import httpx

    with ops_server.client() as c:
        m = make_match(c)
        before = c.get("/metrics").text
        url = f"{ops_server.url}/api/matches/{m.id}/stream"
        with httpx.Client(timeout=10) as h, h.stream(
                "GET", url, headers={"referer": f"{ops_server.url}/m/{m.id}/display"}) as r:
            chunks = r.iter_bytes()  # kept: dropping the iterator closes the stream
            first = next(chunks)
            during = c.get("/metrics").text
        streams = [x for x in during.splitlines() if x.startswith("chukker_streams")]
        assert value(during, "chukker_streams", kind="display") == \
            value(before, "chukker_streams", kind="display") + 1, (r.status_code, first, streams)
        for _ in range(300):  # the server sees the client go at its next write at the latest
            after = c.get("/metrics").text
            if value(after, "chukker_streams", kind="display") == \
                    value(before, "chukker_streams", kind="display"):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the stream gauge did not come down")
