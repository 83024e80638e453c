"""What a repeated public page costs against rendering it (issue 35: the page cache).

    python benchmarks/pages_cache.py [--repeat 200]

Builds the app on a fresh SQLite file with the demo match (played a little) and a
four-team tournament, then, in one event loop with the app's own lifespan, calls the
ASGI app directly (no HTTP client, so that the server's work alone is counted) for each
page kind the crowd asks for: ``--repeat`` times with the cache emptied before every
request (a render: the baseline, the same run; the broadcast feed's own 200 ms cache
emptied too) and ``--repeat`` times answered from
memory. Prints the CPU time (``time.process_time``) per request of each and the ratio.
The machine is shared: figures are noisy; the ratio is what counts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def find_cache(app: Any) -> Any:
    from chukker.web.cache import PageCache

    node = app.middleware_stack
    while not isinstance(node, PageCache):
        node = node.app
    return node


async def call(app: Any, path: str, query: str = "") -> tuple[int, int]:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "root_path": "",
             "headers": [(b"host", b"127.0.0.1"), (b"accept-language", b"es")],
             "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8000), "app": app}
    status = 0
    size = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(msg: dict[str, Any]) -> None:
        nonlocal status, size
        if msg["type"] == "http.response.start":
            status = msg["status"]
        else:
            size += len(msg.get("body", b""))

    await app(scope, receive, send)
    return status, size


async def main(repeat: int) -> int:
    tmp = Path(tempfile.mkdtemp())
    os.environ["CHUKKER_TOURNAMENTS_DIR"] = str(tmp / "tournaments")
    from starlette.testclient import TestClient
    from tests.tournament.web_helpers import four_team_toml

    from chukker.config import LimitSettings, Settings
    from chukker.web import create_app
    from chukker.web.demo import DEMO_HEADER

    token = "bench-organiser-token-0123456789"
    settings = Settings(organiser_token=token, limits=LimitSettings(visitor_rate=0))
    db = tmp / "bench.sqlite3"
    auth = {"authorization": "Bearer " + token}
    with TestClient(create_app(db, organiser=token, settings=settings)) as c:  # the content
        m = c.post("/api/matches", json=DEMO_HEADER, headers=auth).json()
        tk = {"authorization": "Bearer " + m["timekeeper_token"]}
        for i, ev in enumerate(({"type": "bowl_in"}, {"type": "goal", "team": "A", "player": 2},
                                {"type": "whistle"})):
            c.post(f"/api/matches/{m['match_id']}/events", headers=tk,
                   json={"command_id": f"bench-{i}", "event": ev})
        tid = c.post("/tournaments/api", json={"text": four_team_toml()},
                     headers=auth).json()["tournament_id"]
    mid = m["match_id"]
    pages = [("/", ""), ("/rules/", ""), ("/openapi.json", ""), (f"/m/{mid}/sheet", ""),
             (f"/m/{mid}/sheet.json", ""), ("/tournaments/", ""), (f"/tournaments/{tid}", ""),
             (f"/tournaments/{tid}/standings.json", ""),
             (f"/api/matches/{mid}/feed.json", "lang=zz"), (f"/m/{mid}/goals.csv", ""),
             (f"/tournaments/{tid}/standings.csv", "")]
    app = create_app(db, organiser=token, settings=settings)
    worst = float("inf")
    async with app.router.lifespan_context(app):
        await call(app, "/healthz")  # the middleware stack is built on the first request
        cache = find_cache(app)
        print(f"{'page':<44} {'render µs':>10} {'hit µs':>8} {'ratio':>7}")
        for path, query in pages:
            st, _ = await call(app, path, query)
            assert st == 200, (path, st)
            cache.entries.clear()
            t0 = time.process_time()
            for _ in range(repeat):
                cache.entries.clear()
                cache.bytes = 0
                getattr(app.state, "feed_cache", {}).clear()  # feed.json's own 200 ms cache
                await call(app, path, query)
            render = (time.process_time() - t0) / repeat
            await call(app, path, query)
            t0 = time.process_time()
            for _ in range(repeat):
                await call(app, path, query)
            hit = (time.process_time() - t0) / repeat
            ratio = render / max(hit, 1e-9)
            worst = min(worst, ratio)
            label = path + ("?" + query if query else "")
            print(f"{label:<44} {render * 1e6:>10.0f} {hit * 1e6:>8.0f} {ratio:>6.1f}x")
    print(f"worst ratio {worst:.1f}x (the goal: >= 20x)")
    return 0 if worst >= 20 else 1


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeat", type=int, default=200)
    sys.exit(asyncio.run(main(p.parse_args().repeat)))
