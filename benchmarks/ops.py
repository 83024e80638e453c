"""What observation costs a request: the operations middleware (client address behind
proxies, metrics, access log) and the metric hooks, as ratios to baselines in the same run.

    python benchmarks/ops.py [--requests 20000]

* Middleware: ``ObserveMiddleware`` around a trivial ASGI app, driven directly (no
  sockets), with the access log on (written to a discarded stream as JSON) and off,
  against the trivial app alone. The figure is the extra time per request in
  microseconds and as a share of an event POST's median answer time measured here on
  a ``TestClient`` (the cost a timekeeper's event pays).
* Hooks: ``metrics.horn_sounded`` / ``fanned_out`` / ``event_posted`` per call, against
  a call of an empty function.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import io
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from chukker.ops import metrics
from chukker.ops.logging import configure
from chukker.ops.proxy import TrustedProxies
from chukker.web.ops.observe import ObserveMiddleware


async def trivial(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 201,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b"{}"})


def scope() -> dict[str, Any]:
    return {"type": "http", "method": "POST", "path": "/api/matches/abc123/events",
            "query_string": b"", "client": ("10.0.0.5", 4000),
            "headers": [(b"x-forwarded-for", b"203.0.113.9"),
                        (b"authorization", b"Bearer secret")]}


async def drive(app: Any, n: int) -> float:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(msg: Any) -> None:
        return None

    t0 = time.perf_counter()
    for _ in range(n):
        await app(scope(), receive, send)
    return (time.perf_counter() - t0) / n


def best(f: Any, repeat: int = 5) -> float:
    return min(f() for _ in range(repeat))


def post_median(n: int) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from chukker.web import create_app
    from chukker.web.demo import DEMO_HEADER

    tok = "organiser-" + "b" * 20
    app = create_app(Path(tempfile.mkdtemp()) / "b.sqlite3", organiser=tok)
    times = []
    with TestClient(app) as c:
        m = c.post("/api/matches", json=copy.deepcopy(DEMO_HEADER),
                   headers={"authorization": f"Bearer {tok}"}).json()
        auth = {"authorization": f"Bearer {m['timekeeper_token']}"}
        c.post(f"/api/matches/{m['match_id']}/events", headers=auth,
               json={"command_id": "start", "event": {"type": "bowl_in"}})
        for i in range(n):
            ev = {"type": "whistle"} if i % 2 == 0 else {"type": "bowl_in"}
            t0 = time.perf_counter()
            c.post(f"/api/matches/{m['match_id']}/events", headers=auth,
                   json={"command_id": uuid.uuid4().hex, "event": ev})
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--posts", type=int, default=200)
    a = ap.parse_args()
    n = a.requests
    proxies = TrustedProxies.parse(["10.0.0.0/8"])
    sink = io.StringIO()
    configure("json", "info", stream=sink)
    base = best(lambda: asyncio.run(drive(trivial, n)))
    quiet = best(lambda: asyncio.run(drive(ObserveMiddleware(trivial, proxies, access=False), n)))
    logged = best(lambda: asyncio.run(drive(ObserveMiddleware(trivial, proxies, access=True), n)))
    assert "secret" not in sink.getvalue()

    def empty(x: float) -> None:
        return None

    def per_call(f: Any) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            f(0.001)
        return (time.perf_counter() - t0) / n

    hook_base = best(lambda: per_call(empty))
    horn = best(lambda: per_call(metrics.horn_sounded))
    fan = best(lambda: per_call(metrics.fanned_out))
    posted = best(lambda: per_call(
        lambda s: (metrics.event_posted(s, 201), metrics.event_accepted())))
    post = post_median(a.posts)
    us = 1e6
    print(f"trivial ASGI app              {base * us:8.1f} us/request (baseline)")
    print(f"+ middleware, no access log   {quiet * us:8.1f} us/request  "
          f"(+{(quiet - base) * us:.1f} us, {quiet / base:.1f}x)")
    print(f"+ middleware, JSON access log {logged * us:8.1f} us/request  "
          f"(+{(logged - base) * us:.1f} us, {logged / base:.1f}x)")
    print(f"event POST median (TestClient, SQLite, full sync) {post * 1e3:.2f} ms: "
          f"observation adds {(logged - base) / post * 100:.1f}% of it")
    print(f"empty function call           {hook_base * us:8.2f} us (baseline)")
    for name, v in (("horn_sounded", horn), ("fanned_out", fan), ("event_posted", posted)):
        print(f"metrics.{name:<21} {v * us:8.2f} us  ({v / hook_base:.0f}x an empty call)")


if __name__ == "__main__":
    main()
