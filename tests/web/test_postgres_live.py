"""Two ``chukker serve`` processes on one PostgreSQL database (LISTEN/NOTIFY)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
import pytest
from tests.ports import free_port

PG_URL = os.environ.get("CHUKKER_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("postgres-live")]


def serve(port: int, schema: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "CHUKKER_DATABASE_URL": PG_URL, "CHUKKER_DATABASE_SCHEMA": schema}
    return subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--port", str(port), "--no-demo", "--open",
         "--public-workers", "0"],  # one process each: two servers on one database
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )


def wait_up(proc: subprocess.Popen[bytes], base: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "exited")
        try:
            if httpx.get(base + "/api/time", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


def test_two_serve_processes_push_the_same_updates_and_share_command_ids(
    pg_schema: str, header: Any, sse: Any
) -> None:

    ports = [free_port(2), free_port(2)]
    a_url, b_url = (f"http://127.0.0.1:{p}" for p in ports)
    # the first creates the schema; start the second once it is up
    a = serve(ports[0], pg_schema)
    procs = [a]
    try:
        wait_up(a, a_url)
        b = serve(ports[1], pg_schema)
        procs.append(b)
        wait_up(b, b_url)
        with (
            httpx.Client(base_url=a_url, timeout=10) as ca,
            httpx.Client(base_url=b_url, timeout=10) as cb,
        ):
            m = ca.post("/api/matches", json=header).json()
            mid, auth = m["match_id"], {"authorization": "Bearer " + m["timekeeper_token"]}
            on_a, on_b = sse(a_url, mid), sse(b_url, mid)
            on_a.next("state"), on_b.next("state")
            r = ca.post(
                f"/api/matches/{mid}/events",
                headers=auth,
                json={"command_id": "start", "event": {"type": "bowl_in"}},
            )
            assert r.status_code == 201
            got_a, got_b = on_a.next("event"), on_b.next("event")
            assert got_a["id"] == got_b["id"] == "1"
            assert got_a["data"]["event"] == got_b["data"]["event"]
            # a write through B is seen by A's clients too
            r = cb.post(
                f"/api/matches/{mid}/events",
                headers=auth,
                json={"command_id": "g1", "event": {"type": "goal", "team": "A"}},
            )
            assert r.status_code == 201 and r.json()["seq"] == 2
            assert on_a.next("event")["data"]["event"]["type"] == "goal"
            # race: the same command_id through both processes at once -> one event
            codes: list[int] = []
            barrier = threading.Barrier(2)

            def send(c: httpx.Client) -> None:
                barrier.wait()
                codes.append(
                    c.post(
                        f"/api/matches/{mid}/events",
                        headers=auth,
                        json={"command_id": "same", "event": {"type": "whistle"}},
                    ).status_code
                )

            ts = [threading.Thread(target=send, args=(c,)) for c in (ca, cb)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            assert sorted(codes) == [200, 201]
            events = cb.get(f"/api/matches/{mid}/record").json()["events"]
            assert [e["type"] for e in events] == ["bowl_in", "goal", "whistle"]
            ra = ca.get(f"/api/matches/{mid}").json()
            rb = cb.get(f"/api/matches/{mid}", params={"at": ra["at"]}).json()
            assert ra == rb
    finally:
        for p in procs:
            p.kill()
            p.wait(10)
