"""An idle server wakes once a second (issue 43): every timer its housekeeping sets falls
on one grid of the loop's clock (``chukker.ticks``), and a stop still wakes it at once.

The housekeeping: the loop's lateness (``ops.metrics.watch_loop``), uvicorn's tick (the
date header and the exit check, :func:`chukker.web.workers.stopping_server`), the SQLite
file's poll for appends no datagram told of, and the streams' keep-alives. Before, each
slept its own period from its own instant: about 25 wake-ups a second per worker
(``benchmarks/idle.py``). No timing is asserted: the timers' deadlines are read as the
loop is asked for them.
"""

from __future__ import annotations

import asyncio
import math
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import uvicorn
from hypothesis import given
from hypothesis import strategies as st
from tests.web.test_workers import _pair, _stop

from chukker import ticks
from chukker.ops import metrics
from chukker.store.notify import POLL_S
from chukker.web import workers

ROOT = Path(__file__).resolve().parents[2]


class _Recording(asyncio.SelectorEventLoop):
    """A loop that notes each timer's deadline and how far ahead it was set."""

    def __init__(self) -> None:
        super().__init__()
        self.timers: list[tuple[asyncio.TimerHandle, float]] = []

    def call_at(self, when: float, callback: Any, *args: Any, context: Any = None
                ) -> asyncio.TimerHandle:
        handle = super().call_at(when, callback, *args, context=context)
        self.timers.append((handle, when - self.time()))
        return handle

    def periodic(self) -> list[float]:
        """The deadlines of the timers set more than 50 ms ahead and not cancelled (a
        timeout that ended, like a start's, never woke the loop)."""
        return [h.when() for h, ahead in self.timers if ahead > 0.05 and not h.cancelled()]


def _on_grid(when: float, every: float) -> bool:
    return abs(when / every - round(when / every)) < 1e-6


async def _app(scope: Any, receive: Any, send: Any) -> None:  # pragma: no cover - unused
    raise AssertionError("no request in these tests")


def _server() -> Any:
    config = uvicorn.Config(_app, log_level="warning", lifespan="off")
    config.load()
    return workers.stopping_server(config, SimpleNamespace(stopped=False,
                                                           close_streams=lambda: None))


@given(st.floats(0.0, 1e7, allow_nan=False), st.sampled_from([0.5, 1.0, 15.0]))
def test_a_tick_sleeps_to_the_next_line_of_its_grid_never_to_now(now: float, every: float
                                                                   ) -> None:
    wait = ticks.until(every, now)
    assert ticks.NEAR_S <= wait <= every + ticks.NEAR_S * 1.01
    assert math.isclose((now + wait) / every, round((now + wait) / every), abs_tol=1e-6)


def test_an_idle_servers_housekeeping_falls_on_one_grid(tmp_path: Path) -> None:
    """The loop's lateness, uvicorn's tick, two workers' polls of the SQLite file and
    their keep-alives: every timer set more than 50 ms ahead is on the grid of
    ``POLL_S``, so the loop runs them together."""
    loop = _Recording()
    server = _server()
    periodic: list[float] = []

    async def body() -> None:
        w0, w1, _ = _pair(tmp_path)
        for svc in (w0, w1):
            svc.keepalive_s = 2.0
            await svc.start()
        tasks = [asyncio.create_task(metrics.watch_loop()),
                 asyncio.create_task(server.main_loop())]
        try:
            for _ in range(100):  # short steps (not on the grid: under 50 ms ahead)
                await asyncio.sleep(0.02)
                if len(loop.periodic()) >= 6:
                    break
            periodic.extend(loop.periodic())
        finally:
            server.should_exit = True
            await asyncio.wait_for(tasks[1], 30)
            tasks[0].cancel()
            await _stop(w0, w1)

    try:
        loop.run_until_complete(body())
    finally:
        loop.close()
    # the lateness tick, uvicorn's tick, two polls and two keep-alive loops at least
    assert len(periodic) >= 6, loop.timers
    assert all(_on_grid(w, POLL_S) for w in periodic), periodic


def test_a_stop_wakes_uvicorns_tick_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's tick waits a second now; a signal or a test setting ``should_exit`` from
    another thread ends its wait at once (here the wait would be an hour)."""
    monkeypatch.setattr(ticks, "deadline", lambda every, now: now + 3600.0)
    server = _server()

    async def body() -> None:
        task = asyncio.create_task(server.main_loop())
        await asyncio.sleep(0.05)
        assert not task.done()
        threading.Thread(target=setattr, args=(server, "should_exit", True)).start()
        await asyncio.wait_for(task, 30)  # an hour without the wake-up

    asyncio.run(body())
    assert server.should_exit


def test_a_signal_wakes_the_supervisor_at_once() -> None:
    """The supervisor waits up to ``WAIT_S`` between two looks at its workers; SIGTERM
    ends the wait at once (here the wait would be an hour), through the signal's wake-up
    descriptor. Run in a process of its own: the signal and the main thread are its."""
    script = textwrap.dedent("""
        import os, signal, threading
        from chukker.web import workers

        class Never:  # a worker that runs until stopped
            pid = 0
            def __init__(self):
                self.r, self.w = os.pipe()
                self.sentinel = self.r
            def is_alive(self):
                return True

        workers.WAIT_S = (3600.0, 3600.0)
        sup = workers.Supervisor(lambda i: None, 1, listening={})
        sup._start = lambda i: sup.procs.__setitem__(i, Never())
        sup.stop_all = lambda: None
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        print("stopped", sup.run())
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "stopped 0"
