"""Periodic work on one grid, so that an idle process wakes once, not once per task.

A server's housekeeping (the event loop's lateness, uvicorn's date header and exit
check, the SQLite file's poll, the streams' keep-alives) runs on timers. Each timer set
``every_s`` after the task last ran falls at its own instant, and every instant is a
wake-up of the process: on a virtual machine an idle core that wakes costs far more than
the few lines the tick runs (about 0.2 ms of CPU, with cold caches). Timers that sleep
to the next whole multiple of their period on the loop's own clock fall due in the same
millisecond, and the loop runs them in one turn: one wake-up a second for all of them.

>>> round(until(1.0, 12.25), 6), round(until(0.5, 12.25), 6), until(1.0, 13.0)
(0.75, 0.25, 1.0)
>>> round(until(1.0, 12.9999999), 3)  # a hair before the grid: the next line, not 0
1.0
"""

from __future__ import annotations

import asyncio
import math

#: a line of the grid nearer than this is taken as passed (float rounding, ms timers)
NEAR_S = 0.001


def until(every_s: float, now: float) -> float:
    """Seconds from ``now`` to the next whole multiple of ``every_s`` (never less than
    :data:`NEAR_S`: a tick that woke on its line, or a hair early, waits a period)."""
    nxt = (math.floor(now / every_s) + 1) * every_s
    if nxt - now < NEAR_S:
        nxt += every_s
    return nxt - now


async def sleep_to(every_s: float) -> float:
    """Sleep to the next whole multiple of ``every_s`` on the running loop's clock and
    return that deadline (so a caller can measure how late the loop ran it).

    >>> async def late() -> bool:
    ...     due = await sleep_to(0.01)
    ...     return asyncio.get_running_loop().time() >= due - NEAR_S
    >>> asyncio.run(late())
    True
    """
    loop = asyncio.get_running_loop()
    due = deadline(every_s, loop.time())
    woken: asyncio.Future[None] = loop.create_future()
    timer = loop.call_at(due, _wake, woken)  # the line itself, not now + a delay read later
    try:
        await woken
    finally:
        timer.cancel()
    return due


def deadline(every_s: float, now: float) -> float:
    """The loop's time of the next line of the grid of ``every_s`` after ``now``.

    >>> deadline(0.5, 12.25), deadline(1.0, 12.25)
    (12.5, 13.0)
    """
    return now + until(every_s, now)


def _wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():
        woken.set_result(None)
