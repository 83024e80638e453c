"""What a match night does to the store, through the live servers: PostgreSQL restarting
under them (issue 19 item 3) and a disk filling up (item 6). Nothing acknowledged is
lost, no viewer misses an event, /readyz tells the truth throughout."""

from __future__ import annotations

import logging
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from chukker.store import open_store
from chukker.store.sqlite import SQLiteStore

#: the organiser token of the test servers (tests/web/conftest.py)
ORGANISER_AUTH = {"authorization": "Bearer test-organiser-token"}


def terminate(url: str, application_name: str) -> int:
    """What a PostgreSQL restart does to one server: every one of its connections ends."""
    with psycopg.connect(url, autocommit=True) as db:
        return len(db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = %s AND pid <> pg_backend_pid()",
            (application_name,)).fetchall())


def wait_for(check: Any, what: str, timeout: float = 20.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres-live")
def test_after_postgresql_drops_a_server_it_writes_and_is_ready_again_and_viewers_miss_nothing(
        pg_url: str, pg_schema: str, ops_factory: Any, make_match: Any, post: Any, sse: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from chukker.store import postgres

    # A reconnects its LISTEN after 1-3 s: long enough for B to post while A is not listening
    monkeypatch.setattr(postgres, "BACKOFF_S", (2.0, 5.0))
    name_a = "chukker-a-" + uuid.uuid4().hex[:8]
    a_store = postgres.PostgresStore(pg_url, schema=pg_schema, application_name=name_a)
    b_store = open_store(pg_url, pg_schema=pg_schema)
    try:
        with ops_factory(a_store) as a, ops_factory(b_store) as b, a.client() as ca, \
                b.client() as cb:
            wait_for(lambda: ca.get("/readyz").status_code == 200, "A ready")
            m = make_match(ca)
            on_a = sse(a.url, m.id)
            on_a.next("state")
            assert post(ca, m, {"type": "bowl_in"}).status_code == 201
            assert on_a.next("event")["data"]["seq"] == 1

            assert terminate(pg_url, name_a) >= 3  # writer, reader and LISTEN connections
            wait_for(lambda: a_store.listening is False, "A sees it is cut off")
            r = ca.get("/readyz")  # the truth: not listening to the other servers
            assert r.status_code == 503 and "reconnecting" in r.json()["reason"], r.text
            # posted through B while A is not listening: A's viewer must get it anyway
            assert post(cb, m, {"type": "whistle"}).status_code == 201
            assert a_store.listening is False
            assert on_a.next("event", timeout=20)["data"]["seq"] == 2

            wait_for(lambda: ca.get("/readyz").status_code == 200, "A ready again")
            # A's own writes: the next POST succeeds (its dead connection is replaced)
            terminate(pg_url, name_a)
            assert post(ca, m, {"type": "bowl_in"}).status_code == 201
            assert on_a.next("event")["data"]["seq"] == 3
            got = ca.get(f"/api/matches/{m.id}/record").json()
            assert [e["type"] for e in got["events"]] == ["bowl_in", "whistle", "bowl_in"]
    finally:
        a_store.close()
        b_store.close()


def test_a_full_disk_is_refused_as_storage_full_reported_by_readyz_and_recovered_from(
        tmp_path: Path, ops_factory: Any, make_match: Any, post: Any, header: dict[str, Any],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    store = SQLiteStore(tmp_path / "small.sqlite3")
    with ops_factory(store) as srv, srv.client() as c:
        m = make_match(c)
        assert post(c, m, {"type": "bowl_in"}).status_code == 201
        with store._lock:  # the "disk" is full from now on: the file may not grow
            pages = store._db.execute("PRAGMA page_count").fetchone()[0]
            store._db.execute(f"PRAGMA max_page_count = {pages}")
        acked = 1
        refused: httpx.Response | None = None
        for i in range(2000):
            r = post(c, m, {"type": "whistle"} if i % 2 == 0 else {"type": "bowl_in"})
            if r.status_code != 201:
                refused = r
                break
            acked += 1
        assert refused is not None, "the database never filled up"
        assert refused.status_code == 503 and refused.json()["code"] == "storage_full"
        assert refused.headers["retry-after"]
        created = c.post("/api/matches", json={**header, "teams": {
            k: {**t, "name": t["name"] + " " + "x" * 40} for k, t in header["teams"].items()}},
            headers=ORGANISER_AUTH)
        assert created.status_code in (201, 503)  # a small row may still fit; never a 500
        if created.status_code == 503:
            assert created.json()["code"] == "storage_full"
        ready = c.get("/readyz")
        assert ready.status_code == 503 and "full" in ready.json()["checks"]["storage"]
        assert "storage" in ready.json()["reason"]
        for lang, word in (("es", "lleno"), ("it", "pieno")):
            r = post(c, m, {"type": "whistle"} if acked % 2 == 1 else {"type": "bowl_in"})
            assert r.json()["code"] == "storage_full"
            from chukker.web.refusals import refusal_message

            assert word in refusal_message("storage_full", r.json()["params"], lang)
        # space comes back: the server recovers by itself
        with store._lock:
            store._db.execute("PRAGMA max_page_count = 1000000")
        wait_for(lambda: c.get("/readyz").status_code == 200, "ready again", timeout=10)
        r = post(c, m, {"type": "whistle"} if acked % 2 == 1 else {"type": "bowl_in"})
        assert r.status_code == 201, r.text
        assert r.json()["seq"] == acked + 1  # every acknowledged event is there, in order
        assert len(c.get(f"/api/matches/{m.id}/record").json()["events"]) == acked + 1
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "cannot rollback" not in text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], text[-2000:]


@pytest.mark.browser
def test_timekeeper_sees_the_disk_is_full_in_her_language_and_the_key_press_is_kept(
        tmp_path: Path, browser: Any, ops_factory: Any, header: dict[str, Any]) -> None:
    """The console keeps the press queued, says why in the page's language, and sends it
    once space is back: nothing the timekeeper pressed is lost."""
    from playwright.sync_api import expect

    from chukker.store import StorageFull

    store = SQLiteStore(tmp_path / "tk.sqlite3")
    real_append = store.append
    full = {"on": False}

    def append(*args: Any) -> None:
        if full["on"]:
            raise StorageFull("database or disk is full")
        real_append(*args)

    store.append = append  # type: ignore[method-assign]
    with ops_factory(store) as srv, srv.client() as c:
        m = c.post("/api/matches", json=header, headers=ORGANISER_AUTH).json()
        page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        page.goto(f"{srv.url}/m/{m['match_id']}/console?lang=es#token={m['timekeeper_token']}")
        page.wait_for_function(
            "() => window.chukker && window.chukker.state && window.chukker.connected")
        full["on"] = True
        page.keyboard.press("Space")  # bowl-in
        expect(page.locator("#message")).to_contain_text("disco del servidor está lleno",
                                                         timeout=10_000)
        assert page.evaluate("() => window.chukker.queue().length") == 1
        full["on"] = False  # the operator frees space
        wait_for(lambda: page.evaluate("() => window.chukker.queue().length") == 0,
                 "the queue drains")
        events = c.get(f"/api/matches/{m['match_id']}/record").json()["events"]
        assert [e["type"] for e in events] == ["bowl_in"]
