"""A flood on match day: while one client creates matches as fast as the open mode
lets it and another holds 2,000 idle live streams, the timekeeper runs the end of a
period. Every POST is answered and the end horn is recorded."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from chukker.store import open_store


def hold_streams(port: int, match_id: str, n: int, ready: threading.Event,
                 stop: threading.Event) -> None:
    async def run() -> None:
        writers = []
        for _ in range(n):
            _, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(f"GET /api/matches/{match_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            writers.append(w)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        for w in writers:
            w.close()

    asyncio.run(run())


def create_matches(url: str, header: Any, stop: threading.Event, codes: list[int]) -> None:
    with httpx.Client(base_url=url, timeout=30) as c:
        while not stop.is_set():
            r = c.post("/api/matches", json=header)
            codes.append(r.status_code)
            if r.status_code == 429:
                time.sleep(0.05)


def test_flood_of_streams_and_creations_never_stops_the_timekeeper(
        db_path: Path, header: Any, backdate: Any, server_factory: Any) -> None:
    store = open_store(db_path)
    mid = backdate(store, header, ago_ms=450_000 - 5_000)  # the period ends in 5 s
    store.close()
    with server_factory(db_path, organiser="o", open_mode=True,
                        open_rate=(5.0, 20.0)) as srv:
        stop, ready = threading.Event(), threading.Event()
        codes: list[int] = []
        holder = threading.Thread(target=hold_streams, args=(srv.port, mid, 2000, ready, stop))
        maker = threading.Thread(target=create_matches, args=(srv.url, header, stop, codes))
        holder.start()
        maker.start()
        try:
            assert ready.wait(60)
            answered = []
            auth = {"authorization": "Bearer " + "tk-" + mid}
            with srv.client() as c:
                for i, kind in enumerate(["whistle", "bowl_in"] * 3):
                    r = c.post(f"/api/matches/{mid}/events", headers=auth,
                               json={"command_id": f"f{i}", "event": {"type": kind}})
                    answered.append(r.status_code)
                # the horn falls due while the flood goes on
                end = time.monotonic() + 30
                horns: list[Any] = []
                while time.monotonic() < end and not horns:
                    time.sleep(0.2)
                    horns = c.get(f"/api/matches/{mid}/horns").json()
        finally:
            stop.set()
            holder.join(30)
            maker.join(30)
        # every POST is answered: accepted, or refused by the rules once the horn has gone
        # (on a slow machine the period may end before the timekeeper is done)
        assert len(answered) == 6 and set(answered) <= {201, 409}
        assert [h["kind"] for h in horns] == ["end"]
        assert 201 in codes and set(codes) <= {201, 429}
