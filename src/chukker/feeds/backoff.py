"""The feeds' reconnect policy, one for MQTT and JetStream alike.

After a failed or lost connection a feed waits ``low`` seconds, doubling up to ``high``,
each wait drawn between half and all of it so that many servers do not knock at once;
a connection that serves starts it again from ``low``.

>>> b = Backoff()
>>> b.delay, b.next(), b.delay
(0.2, 0.2, 0.4)
>>> for _ in range(9):
...     _ = b.next()
>>> b.delay
5.0
>>> b.reset(); b.delay
0.2
>>> failure(ConnectionError("refused " * 40))[:33]
'ConnectionError: refused refused '
>>> len(failure(ConnectionError("refused " * 40)))
200
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field


@dataclass(slots=True)
class Backoff:
    """The wait before the next connection (see the module)."""

    low: float = 0.2
    high: float = 5.0
    delay: float = field(init=False)

    def __post_init__(self) -> None:
        self.delay = self.low

    def reset(self, delay: float | None = None) -> None:
        """Start again from ``low`` (or from ``delay``: sooner, for a session to take back)."""
        self.delay = self.low if delay is None else delay

    def next(self) -> float:
        """This wait's ceiling; the one after is twice it, at most ``high``."""
        now, self.delay = self.delay, min(self.delay * 2, self.high)
        return now

    async def wait(self) -> None:
        """Sleep this wait (between half and all of it), then double it."""
        await asyncio.sleep(self.next() * random.uniform(0.5, 1.0))


def failure(e: BaseException) -> str:
    """What a connection's error is said as (``/readyz``, the logs): its kind and words,
    at most 200 characters."""
    return f"{type(e).__name__}: {e}"[:200]
