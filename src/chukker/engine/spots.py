"""Where play restarts, in yards on the 100 x 50-yard arena (Rule 1).

x runs along the length from the west wall (the west goal's centre is at
``(0, 25)``, the east goal's at ``(100, 25)``), y across it.

>>> in_front_of(End.WEST, 15)
(15.0, 25.0)
>>> in_front_of(End.EAST, 25)
(75.0, 25.0)
>>> off_the_wall((2.0, 49.0), 5)
(5.0, 45.0)
>>> away_from_goals((3.0, 25.0), 15)
(15.0, 25.0)
"""

from __future__ import annotations

import math
from typing import Final

from chukker.engine.types import End

LENGTH: Final = 100.0
WIDTH: Final = 50.0
CENTER: Final = (LENGTH / 2, WIDTH / 2)

Spot = tuple[float, float]


def goal_center(end: End) -> Spot:
    return (0.0, WIDTH / 2) if end is End.WEST else (LENGTH, WIDTH / 2)


def in_front_of(end: End, yards: float) -> Spot:
    """The spot ``yards`` in front of the centre of the goal at ``end`` (Rule 9)."""
    x = float(yards) if end is End.WEST else LENGTH - yards
    return (x, WIDTH / 2)


def off_the_wall(spot: Spot, min_yd: float) -> Spot:
    """Penalty 5b: the nearest spot at least ``min_yd`` from every wall."""
    x, y = spot
    lo = float(min_yd)
    return (min(max(x, lo), LENGTH - lo), min(max(y, lo), WIDTH - lo))


def away_from_goals(spot: Spot, min_yd: float) -> Spot:
    """Rule 10: move ``spot`` straight away from the nearer goal until it is ``min_yd`` off."""
    x, y = off_the_wall(spot, 0.0)
    for end in End:
        gx, gy = goal_center(end)
        d = math.hypot(x - gx, y - gy)
        if d < min_yd:
            if d == 0:
                return in_front_of(end, min_yd)
            k = min_yd / d
            x, y = gx + (x - gx) * k, gy + (y - gy) * k
            x, y = off_the_wall((x, y), 0.0)
    return (round(x, 3), round(y, 3))
