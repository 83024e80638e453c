"""Errors of the engine. All subclass :class:`ValueError`."""

from __future__ import annotations


def fmt_s(ms: int) -> str:
    """Milliseconds as seconds with three decimals: ``fmt_s(512300) == '512.300 s'``."""
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    return f"{sign}{ms // 1000}.{ms % 1000:03d} s"


class SetupError(ValueError):
    """The record's header (rules, options, teams) is not a valid arena match.

    ``path`` names the offending field, e.g. ``teams.A.players``.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class EngineError(ValueError):
    """An operator event was refused.

    ``index`` is the event's position in the record counting from 1,
    ``at_ms`` its time and ``reason`` why it was refused.

    >>> str(EngineError(14, "goal", 512300, "the ball is dead: period 2 ended at 510.000 s"))
    'event 14 (goal at 512.300 s): the ball is dead: period 2 ended at 510.000 s'
    """

    def __init__(self, index: int, type_: str, at_ms: int | None, reason: str) -> None:
        self.index = index
        self.type = type_
        self.at_ms = at_ms
        self.reason = reason
        where = f"{type_} at {fmt_s(at_ms)}" if at_ms is not None else type_
        super().__init__(f"event {index} ({where}): {reason}")
