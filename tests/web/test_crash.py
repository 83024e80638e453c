"""Crash test: kill -9 the server in the middle of a running period and start it again."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from tests import ports


def free_port() -> int:
    return ports.free_port(2)


def wait_port_closed(port: int, timeout: float = 15.0) -> None:
    """Until nothing answers on ``port`` (nor the officials' ``port + 1``): the killed
    server's workers, told by their supervisor's death, may still be draining, and with
    ``SO_REUSEPORT`` they would answer the new server's readiness check, then go."""
    deadline = time.monotonic() + timeout
    for p in (port, port + 1):
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", p)) != 0:
                    break
            time.sleep(0.05)


def start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    wait_port_closed(port)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("CHUKKER_DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(db), "--port", str(port),
         "--no-demo", "--open"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "exited")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/time", timeout=1).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def test_kill_9_mid_period_then_restart_same_report_and_clock(tmp_path: Path,
                                                             header: Any) -> None:
    db = tmp_path / "crash.sqlite3"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(db, port)
    try:
        with httpx.Client(base_url=base, timeout=10) as c:
            m = c.post("/api/matches", json=header).json()
            auth = {"authorization": "Bearer " + m["timekeeper_token"]}
            mid = m["match_id"]
            for i, ev in enumerate([{"type": "bowl_in"}, {"type": "goal", "team": "A", "player": 2},
                                    {"type": "goal", "team": "B", "player": 1},
                                    {"type": "foul", "team": "A", "penalty": "3"},
                                    {"type": "free_hit"},
                                    {"type": "goal", "team": "B", "player": 3}]):
                r = c.post(f"/api/matches/{mid}/events", headers=auth,
                           json={"command_id": f"c{i}", "event": ev})
                assert r.status_code == 201, r.text
            before = c.get(f"/api/matches/{mid}").json()
            record_before = c.get(f"/api/matches/{mid}/record").text
            assert before["clock"]["running"] is True
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)

    proc = start_server(db, port)
    try:
        with httpx.Client(base_url=base, timeout=10) as c:
            same_instant = c.get(f"/api/matches/{mid}", params={"at": before["at"]}).json()
            assert same_instant == before
            assert c.get(f"/api/matches/{mid}/record").text == record_before
            now = c.get(f"/api/matches/{mid}").json()
            assert now["at"] >= before["at"]
            assert now["status"] == "in_play" and now["clock"]["running"] is True
            # the clock ran on while the server was down: as of the report's own instant,
            # exactly as the events say (stopped from the foul to the free hit)
            ev = {e["type"]: e["at"] for e in c.get(f"/api/matches/{mid}/record").json()["events"]}
            stopped_ms = round(ev["free_hit"] * 1000) - round(ev["foul"] * 1000)
            ran_ms = round(now["at"] * 1000) - stopped_ms
            assert now["clock"]["remaining_ms"] == 450_000 - ran_ms
            # and the timekeeper carries on where they were
            r = c.post(f"/api/matches/{mid}/events", headers=auth,
                       json={"command_id": "c5",
                                 "event": {"type": "goal", "team": "B", "player": 3}})
            assert r.status_code == 200 and r.json()["duplicate"] is True
            r = c.post(f"/api/matches/{mid}/events", headers=auth,
                       json={"command_id": "c6", "event": {"type": "whistle"}})
            assert r.status_code == 201 and r.json()["seq"] == 7
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
