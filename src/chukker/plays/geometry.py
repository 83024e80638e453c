"""Arena geometry (Rule 1) and plane transformations used by the property tests.

Coordinates are yards with the origin at a corner: ``x`` along the length
(0 to 100), ``y`` across (0 to 50). The left goal is at ``x = 0``.

>>> a = Arena.from_edition()
>>> a.length, a.width, round(a.goal_width, 3)
(100.0, 50.0, 3.333)
>>> a.lines
(15.0, 25.0, 50.0, 75.0, 85.0)
>>> a.clip_line((50.0, 25.0), (1.0, 0.0))
((0.0, 25.0), (100.0, 25.0))
"""

from __future__ import annotations

from dataclasses import dataclass

from chukker.rules import edition


@dataclass(frozen=True, slots=True)
class Arena:
    """The playing area: walls, centre line, 15- and 25-yard lines, goals 10 ft wide."""

    length: float = 100.0
    width: float = 50.0
    goal_width: float = 10.0 / 3.0
    source: str = "Rule 1"

    @classmethod
    def from_edition(cls, edition_id: str = "uspa-arena-2026") -> Arena:
        e = edition(edition_id)
        return cls(
            float(e.arena_length_yd.value),
            float(e.arena_width_yd.value),
            10.0 / 3.0,
            f"Rule {e.arena_length_yd.clause} ({e.title})",
        )

    @property
    def lines(self) -> tuple[float, ...]:
        """x of the 15-yard, 25-yard, centre, and far 25- and 15-yard lines."""
        L = self.length
        return (15.0, 25.0, L / 2, L - 25.0, L - 15.0)

    @property
    def goal_y(self) -> tuple[float, float]:
        """y of the two goal posts (the goals are centred on the end walls)."""
        return (self.width / 2 - self.goal_width / 2, self.width / 2 + self.goal_width / 2)

    def clip_line(
        self, origin: tuple[float, float], direction: tuple[float, float]
    ) -> tuple[tuple[float, float], tuple[float, float]]:
        """The part inside the walls of the line through ``origin`` along ``direction``."""
        ox, oy = origin
        dx, dy = direction
        lo, hi = -1e9, 1e9
        for o, d, size in ((ox, dx, self.length), (oy, dy, self.width)):
            if abs(d) < 1e-12:
                continue
            a, b = (0.0 - o) / d, (size - o) / d
            lo, hi = max(lo, min(a, b)), min(hi, max(a, b))
        if lo > hi:
            return (ox, oy), (ox, oy)
        return (ox + lo * dx, oy + lo * dy), (ox + hi * dx, oy + hi * dy)


ARENA = Arena()


@dataclass(frozen=True, slots=True)
class Transform:
    """An affine map ``p -> (sx * x + tx, sy * y + ty)`` (isometries of the axes only).

    ``rotate180`` and ``mirror_long_axis`` keep the arena onto itself, so the walls
    (13j) are unchanged; ``translate`` does not, so use it on plays away from the walls.

    >>> Transform.rotate180(ARENA).apply(10.0, 5.0)
    (90.0, 45.0)
    >>> Transform.mirror_long_axis(ARENA).apply(10.0, 5.0)
    (10.0, 45.0)
    """

    sx: float = 1.0
    sy: float = 1.0
    tx: float = 0.0
    ty: float = 0.0
    swaps_ends: bool = False

    @classmethod
    def rotate180(cls, arena: Arena) -> Transform:
        return cls(-1.0, -1.0, arena.length, arena.width, True)

    @classmethod
    def mirror_long_axis(cls, arena: Arena) -> Transform:
        return cls(1.0, -1.0, 0.0, arena.width, False)

    @classmethod
    def translate(cls, dx: float, dy: float) -> Transform:
        return cls(1.0, 1.0, dx, dy, False)

    def apply(self, x: float, y: float) -> tuple[float, float]:
        return (self.sx * x + self.tx, self.sy * y + self.ty)
