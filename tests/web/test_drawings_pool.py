"""Every drawing (a play's SVG and PNG, a quiz picture, a review's moment and heat maps)
is made by a worker process of the drawings pool, never on the event loop: while one
is being drawn, a timekeeper's POST is answered and the loop runs its callbacks (a
horn is one). No timing is asserted: the drawing is held in the pool until the POST
has been answered, and the loop's callbacks are counted while it is held."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.web.conftest import OPEN, Match

from chukker.web import create_app
from chukker.web.heavy import Busy, Kind, OverLimit, Pools, PoolSpec
from chukker.web.public import plays_base as plays_pages

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gps"


class Held:
    """The app's pools, holding each drawing's answer until :attr:`release` is set; it
    counts the event loop's callbacks run while the worker draws and while held."""

    def __init__(self, pools: Pools) -> None:
        self.pools = pools
        self.real = pools.run
        self.calls: list[tuple[Kind, str]] = []
        self.drawing = threading.Event()
        self.release = threading.Event()
        self.ticks = 0

    async def run(self, kind: Kind, address: str, fn: Callable[..., Any],
                  args: list[Any] | tuple[Any, ...]) -> Any:
        self.calls.append((kind, fn.__name__))
        if kind is not Kind.DRAWINGS:
            return await self.real(kind, address, fn, args)
        loop = asyncio.get_running_loop()
        stop = False

        def tick() -> None:  # a callback, as a horn's timer is
            self.ticks += 1
            if not stop:
                loop.call_later(0.001, tick)

        loop.call_soon(tick)
        try:
            got = await self.real(kind, address, fn, args)
            self.drawing.set()
            while not self.release.is_set():
                await asyncio.sleep(0.005)
        finally:
            stop = True
        return got


@pytest.fixture
def held(tmp_path: Path, header: dict[str, Any]) -> Iterator[tuple[TestClient, Held, Match]]:
    plays_pages.DRAWN.items.clear()
    pools = Pools()
    h = Held(pools)
    pools.run = h.run  # type: ignore[method-assign]  # before the app is made
    app = create_app(tmp_path / "draw.sqlite3", **OPEN, heavy=pools)
    with TestClient(app) as c:
        r = c.post("/api/matches", json=header)
        assert r.status_code == 201, r.text
        yield c, h, Match(r.json())
        h.release.set()


def _upload(c: TestClient) -> str:
    files = {
        "file": ("session.toml", (EXAMPLE / "session.toml").read_bytes()),
        "fixes": ("session-fixes.csv", (EXAMPLE / "session-fixes.csv").read_bytes()),
    }
    r = c.post("/plays/review", files=files, follow_redirects=False)
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


def _while_drawing(c: TestClient, h: Held, m: Match, path: str) -> Any:
    """GET ``path`` in a thread; once its drawing is made and held, a timekeeper POST."""
    got: dict[str, Any] = {}
    t = threading.Thread(target=lambda: got.setdefault("r", c.get(path)))
    t.start()
    assert h.drawing.wait(120), "the drawing never came back from its worker"
    post = c.post(f"/api/matches/{m.id}/events", headers=m.tk,
                  json={"command_id": "draw-1", "event": {"type": "bowl_in"}})
    assert "r" not in got  # the page is still waiting for its drawing
    h.release.set()
    t.join(120)
    return post, got["r"]


def test_review_page_heat_maps_are_drawn_in_a_worker_while_a_timekeeper_post_is_answered(
    held: tuple[TestClient, Held, Match],
) -> None:
    c, h, m = held
    h.release.set()
    loc = _upload(c)
    h.release.clear()
    h.drawing.clear()
    h.calls.clear()
    post, page = _while_drawing(c, h, m, loc + "&c=0&p=1")
    assert post.status_code in (200, 201), post.text  # answered while the heat maps waited
    assert page.status_code == 200
    assert page.text.count('class="heat"') == 4  # the heat maps came back from the worker
    assert h.calls == [(Kind.DRAWINGS, "review_parts")]
    pool = h.pools.pools[Kind.DRAWINGS]
    assert pool.spec.processes and pool._procs is not None  # pebble's worker processes
    assert h.ticks > 1  # the loop ran its callbacks while the drawing was made and held


@pytest.mark.parametrize("path", [
    "/plays/13b-zigzag", "/plays/13b-zigzag.svg?lang=es", "/plays/13b-zigzag.png?t=1.5",
    "/learn/play/13b-zigzag.png?t=1",
])
def test_play_drawings_are_made_in_a_worker_and_kept_while_the_loop_serves_a_post(
    held: tuple[TestClient, Held, Match], path: str,
) -> None:
    c, h, m = held
    post, page = _while_drawing(c, h, m, path)
    assert post.status_code in (200, 201), post.text
    assert page.status_code == 200
    assert [k for k, _ in h.calls] == [Kind.DRAWINGS]
    assert h.ticks > 1
    again = c.get(path)  # the same drawing again: from memory, no worker
    assert again.content == page.content and len(h.calls) == 1


def test_drawings_pool_full_is_a_translated_503_with_retry_after(tmp_path: Path) -> None:
    plays_pages.DRAWN.items.clear()
    app = create_app(tmp_path / "busy.sqlite3", **OPEN, heavy=Pools(
        {Kind.DRAWINGS: PoolSpec(Kind.DRAWINGS, 1, 1, 0.05, 5.0, None, False)}))
    with TestClient(app) as c:
        app.state.heavy.pools[Kind.DRAWINGS].by_address["testclient"] = 1
        r = c.get("/plays/13b-zigzag.svg?lang=it")
        assert r.status_code == 503 and r.headers["retry-after"]
        assert "riprovare" in r.text  # in Italian
        app.state.heavy.pools[Kind.DRAWINGS].by_address.clear()
        assert c.get("/plays/13b-zigzag.svg?lang=it").status_code == 200
    assert issubclass(Busy, ValueError)


#: each drawing's address and whether it is a page (else a file)
_DRAWINGS = [("/plays/13b-zigzag", True), ("/plays/13b-zigzag.svg", False),
             ("/plays/13b-zigzag.png?t=1.5", False), ("/learn/play/13b-zigzag.png?t=1", False),
             ("review", True)]


@pytest.mark.parametrize("refusal", ["busy", "over_limit"])
@pytest.mark.parametrize(("path", "page"), _DRAWINGS)
def test_a_drawing_the_pool_refuses_is_the_same_translated_answer_on_every_page(
    tmp_path: Path, path: str, page: bool, refusal: str,
) -> None:
    """The five drawings (a play's page, SVG and PNG, a quiz picture, a review's moment)
    refuse alike: 503 with Retry-After when the pool is full, 422 past a worker's limit,
    the sentence in the caller's language; a page says it on the upload page, a file in
    plain text."""
    from chukker.web.refusals import refusal_message

    plays_pages.DRAWN.items.clear()
    exc = Busy(Kind.DRAWINGS) if refusal == "busy" else OverLimit(Kind.DRAWINGS, "memory")
    pools = Pools()
    real = pools.run

    async def refused(kind: Kind, address: str, fn: Callable[..., Any],
                      args: list[Any] | tuple[Any, ...]) -> Any:
        if kind is Kind.DRAWINGS:
            raise exc
        return await real(kind, address, fn, args)

    pools.run = refused  # type: ignore[method-assign]  # before the app is made
    app = create_app(tmp_path / "refused.sqlite3", **OPEN, heavy=pools)
    with TestClient(app) as c:
        if path == "review":
            path = _upload(c) + "&c=0&p=1"
        r = c.get(path + ("&" if "?" in path else "?") + "lang=it")
    assert r.status_code == (503 if refusal == "busy" else 422), r.text
    assert ("retry-after" in r.headers) is (refusal == "busy")
    said = refusal_message(exc.code, exc.params, "it")
    assert said != refusal_message(exc.code, exc.params, "en")  # in Italian
    assert r.headers["content-type"].startswith("text/html" if page else "text/plain")
    assert said in (r.text if page else r.text.removesuffix("\n"))
