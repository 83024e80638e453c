"""The server's clock: wall-clock milliseconds read from the monotonic clock.

The live service is the only place that reads a clock; tests give it a
virtual one (anything with ``now_ms()`` and ``loop_time(wall_ms)``).

>>> c = Clock(); abs(c.now_ms() - c.now_ms()) < 1000
True
"""

from __future__ import annotations

import time


class Clock:
    """Wall-clock milliseconds read from the monotonic clock, anchored once.

    Manual changes of the system clock after start do not move it.
    """

    def __init__(self) -> None:
        self._wall0 = time.time_ns() // 1_000_000
        self._mono0 = time.monotonic_ns()

    def now_ms(self) -> int:
        return self._wall0 + (time.monotonic_ns() - self._mono0) // 1_000_000

    def loop_time(self, wall_ms: int) -> float:
        """The ``loop.time()`` (``time.monotonic``) instant of a wall-clock instant, one
        millisecond after it. A timer can run before its time: asyncio's by its clock's
        resolution (1 ns, and a float of seconds rounds), uvloop's by up to half a
        millisecond (it keeps a timer's delay in whole milliseconds, rounded, from a
        clock it reads once per turn of the loop). A horn timed at the instant itself
        then read :meth:`now_ms` one millisecond short, and was recorded as sounding
        early: about one timer in four under uvloop, before the margin was 1 ms."""
        return (self._mono0 + (wall_ms - self._wall0) * 1_000_000 + _MARGIN_NS) / 1e9


#: how far after its instant a timer is set (:meth:`Clock.loop_time`): more than uvloop's
#: half a millisecond early
_MARGIN_NS = 1_000_000
