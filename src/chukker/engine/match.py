"""The public face of the engine: :class:`Match`, an append-only log of operator events.

Every operator event has a check and a do, as in python-chess and PokerKit:
``verify(ev)`` raises :class:`EngineError` with the reason, ``can(ev)`` answers yes or
no, ``apply(ev)`` verifies, appends and returns the accepted event. An event is its
class from :mod:`chukker.engine.events`, or a dict as it stands in the record, typed
where it enters (``at`` in seconds since the record started); the state and the report
take the instant as an argument, in integer milliseconds.

>>> from chukker.engine import Match, Setup
>>> players = [{"no": n, "handicap": 1} for n in (1, 2, 3)]
>>> m = Match(Setup.from_dict({"options": {"handicap": False}, "teams": {
...     "A": {"captain": 1, "players": players}, "B": {"captain": 1, "players": players}}}))
>>> m.apply({"at": 0, "type": "bowl_in"})["type"]
'bowl_in'
>>> m.apply({"at": 61.25, "type": "goal", "team": "A", "player": 2})["at"]
61.25
>>> m.can({"at": 460, "type": "goal", "team": "B"})
False
>>> m.verify({"at": 460, "type": "goal", "team": "B"})
Traceback (most recent call last):
...
chukker.engine.errors.EngineError: event 3 (goal at 460.000 s): the ball is dead: period 1 ...
>>> r = m.report(460_000)
>>> r["status"], r["score"], r["horns"]
('interval', {'A': 1, 'B': 0}, [{'at': 450.0, 'period': 1, 'kind': 'end'}])
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ParamSpec, TypeVar

from chukker.engine.allowed import allowed_now, probe
from chukker.engine.core import Core
from chukker.engine.errors import EngineError
from chukker.engine.events import Event as TypedEvent
from chukker.engine.events import Undo, to_wire
from chukker.engine.fold import Fold
from chukker.engine.setup import Setup
from chukker.engine.state import INF
from chukker.engine.types import EventType, Status


@dataclass(frozen=True, slots=True)
class Event:
    """One operator event as appended: its position (from 1), type, time and fields."""

    index: int
    type: EventType
    at_ms: int
    fields: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The event as it stands in the record (``at`` in seconds)."""
        out: dict[str, Any] = {"at": self.at_ms / 1000, "type": str(self.type)}
        out.update(self.fields)
        return out


def _event(index: int, d: Mapping[str, Any]) -> Event:
    at = d.get("at", 0)
    at_ms = round(float(at) * 1000)
    fields = {k: v for k, v in d.items() if k not in ("at", "type")}
    return Event(index, EventType(d["type"]), at_ms, MappingProxyType(fields))


def _wire(ev: Any) -> Any:
    """An event as the record holds it: a record's dict copied, a typed event as a dict
    (anything else as it came: the fold refuses it)."""
    if type(ev) is dict:
        return dict(ev)
    if isinstance(ev, TypedEvent):
        return to_wire(ev)
    return dict(ev) if isinstance(ev, Mapping) else ev


def _clone(core: Core) -> Core:
    return core.copy()


def _undo_ok(fold: Fold, at_ms: int) -> bool:
    """Whether undoing the last event would be accepted at ``at_ms``.

    Undoing the last event, when it is not itself an undo, leaves the events before
    it as they were accepted: always accepted. Otherwise the whole log decides.
    """
    n = len(fold.events)
    if n == 0 or at_ms < fold.core.last_at:
        return False
    if not isinstance(fold.events[-1].event, Undo):
        return True
    cached = fold.memo.get("undo_ok")
    if cached is not None and cached[0] == n:
        return bool(cached[1])  # the refold does not depend on the instant
    try:
        fold.verify(Undo(at=at_ms / 1000, event=n))
        ok = True
    except EngineError:
        ok = False
    fold.memo["undo_ok"] = (n, ok)
    return ok


def _report(fold: Fold, core: Core, at_ms: int) -> dict[str, Any]:
    r = core.report(at_ms)
    if at_ms < fold.core.last_at:
        r["allowed"] = []  # nothing may be sent before the last event
    else:
        # ``core`` is the caller's own (a copy, or a replay's fold): the probes run on it
        r["allowed"] = allowed_now(core, len(fold.events), at_ms, _undo_ok(fold, at_ms), True)
    return r


class Match:
    """A match: its set-up and the append-only list of operator events."""

    def __init__(
        self, setup: Setup, events: Iterable[TypedEvent | Mapping[str, Any]] = ()
    ) -> None:
        self.setup = setup
        self._fold = Fold(setup)
        given = list(events)
        self._fold.feed(given)
        #: the events as they stand in the record: a given dict kept as it came (not
        #: copied: :attr:`events` gives copies), a typed event as its dict
        self._wire: list[Mapping[str, Any]] = [
            e if type(e) is dict else _wire(e) for e in given]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) as its set-up and events, folded again when loaded:
        the compiled engine's state has no ``__dict__`` to copy."""
        return (Match, (self.setup, self.events))

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Match:
        """A match from a whole record (header and events); raises on the first refusal."""
        return cls(Setup.from_dict(record), record.get("events", ()))

    # ------------------------------------------------------------ generic
    @property
    def events(self) -> tuple[dict[str, Any], ...]:
        """The stored event dicts, in order (cancelled ones included)."""
        return tuple(dict(e) for e in self._wire)

    def event(self, index: int) -> Event:
        """Event ``index`` (counting from 1) as an immutable :class:`Event`."""
        return _event(index, self._wire[index - 1])

    def __len__(self) -> int:
        return len(self._fold.events)

    def verify(self, ev: TypedEvent | Mapping[str, Any]) -> None:
        """Raise :class:`EngineError` with the reason if ``ev`` (``at`` in seconds) would be
        refused now; change nothing. Costs one event, not the log (an ``undo`` refolds it).

        >>> from chukker.engine.simulate import default_setup
        >>> m = Match(default_setup())
        >>> m.verify({"at": 0, "type": "free_hit"})
        Traceback (most recent call last):
        ...
        chukker.engine.errors.EngineError: event 1 (free_hit at 0.000 s): ...
        >>> m.verify({"at": 0, "type": "bowl_in"}), len(m)
        (None, 0)
        """
        self._fold.verify(ev)

    def can(self, ev: TypedEvent | Mapping[str, Any]) -> bool:
        """Whether ``ev`` (``at`` in seconds) would be accepted now; change nothing.

        >>> from chukker.engine.simulate import default_setup
        >>> m = Match(default_setup())
        >>> m.can({"at": 0, "type": "bowl_in"}), m.can({"at": 0, "type": "free_hit"})
        (True, False)
        """
        try:
            self.verify(ev)
        except EngineError:
            return False
        return True

    def apply(
        self, ev: TypedEvent | Mapping[str, Any], *, typed: TypedEvent | None = None
    ) -> dict[str, Any]:
        """Verify ``ev`` (``at`` in seconds) and append it; returns the accepted event as
        it stands in the record (a copy). A refused event raises :class:`EngineError`
        with the reason and changes nothing.

        >>> from chukker.engine.simulate import default_setup
        >>> m = Match(default_setup())
        >>> m.apply({"at": 0, "type": "bowl_in"})
        {'at': 0, 'type': 'bowl_in'}
        >>> m.apply({"at": 12.5, "type": "whistle", "source": "audio"}) == m.events[-1]
        True

        ``typed``: ``ev`` already as its class (a caller that typed it when it checked
        it, as the live API does), folded as it is; ``ev`` is what the record keeps.
        """
        stored = _wire(ev)
        self._fold.apply_safely(ev if typed is None else typed)
        self._wire.append(stored)
        return dict(stored)

    def allowed(self, at_ms: int) -> list[str]:
        """The actions an operator could send at ``at_ms`` (the report's ``allowed``)."""
        if at_ms < self._fold.core.last_at:
            return []
        c = self.state_at(at_ms)
        return allowed_now(c, len(self._fold.events), at_ms, _undo_ok(self._fold, at_ms), True)

    def probe(self, type_: str, at_ms: int) -> dict[str, Any] | None:
        """The canonical event of ``type_`` that ``allowed`` tries at ``at_ms``."""
        if at_ms < self._fold.core.last_at:
            return None
        c = self.state_at(at_ms)
        ev = probe(c, len(self._fold.events), type_, at_ms)
        return None if ev is None else to_wire(ev)

    # ------------------------------------------------------------ state
    def state_at(self, at_ms: int | None = None) -> Core:
        """The derived state at ``at_ms`` (``None``: run on until an operator must act)."""
        core = self._fold.core
        if at_ms is None:
            c = _clone(core)
            c.advance(INF)
            return c
        if at_ms >= core.last_at:
            c = _clone(core)
            c.advance(at_ms)
            c.now = max(c.now, at_ms)
            return c
        fold = Fold(self.setup)
        fold.feed(self._fold.typed_events(), until_ms=at_ms)
        c = fold.core
        c.advance(at_ms)
        c.now = max(c.now, at_ms)
        return c

    def report(self, at_ms: int | None = None) -> dict[str, Any]:
        """The replay report (the ``chukker replay --json`` object) at ``at_ms``, with
        ``allowed``: the actions an operator could send at that instant."""
        c = self.state_at(at_ms)
        return _report(self._fold, c, c.now if at_ms is None else at_ms)

    def report_and_horns(self, at_ms: int) -> tuple[dict[str, Any], tuple[int, ...]]:
        """:meth:`report` at ``at_ms``, and when each of its ``horns`` was due, in whole ms
        and in the same order: the live service sounds and audits horns by these, without
        reading the report's seconds back (issue 45)."""
        c = self.state_at(at_ms)
        return _report(self._fold, c, at_ms), tuple(h[0] for h in c.horns)

    def next_deadline_ms(self, after_ms: int) -> int | None:
        """The next instant after ``after_ms`` at which the state changes by itself
        (a horn, the end of an interval), or ``None``."""
        core = self._fold.core
        if after_ms < core.deadline:
            return None if core.deadline == INF else int(core.deadline)
        c = _clone(core)
        c.advance(after_ms)
        return None if c.deadline == INF else int(c.deadline)

    def is_final(self, at_ms: int | None = None) -> bool:
        return self.state_at(at_ms).status is Status.FINAL

    def to_record(self) -> dict[str, Any]:
        doc = self.setup.to_dict()
        doc["events"] = [dict(e) for e in self._wire]
        return doc


_P = ParamSpec("_P")
_R = TypeVar("_R")


def collector_waits(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """``fn`` with the cyclic garbage collector off while it runs, and back on after
    (``try``/``finally``) where it was on: a collector already off (by the caller, or by
    another thread replaying now) is left as it is. For replays: the fold's objects (a
    ``Recorded`` an event, the clock's, the notices) live until the report is made and
    then go by their reference counts, so the collector would only walk them again and
    again (about an eighth of a long record's replay, ``docs/engine.md``, *The collector
    waits for a replay*). The fold makes no cycle for it to find.

    >>> collector_waits(gc.isenabled)()
    False
    >>> gc.isenabled()
    True
    """

    @functools.wraps(fn)
    def waiting(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return waiting


@collector_waits
def replay(
    setup: Setup,
    events: Sequence[TypedEvent | Mapping[str, Any]],
    at_ms: int | None = None,
) -> dict[str, Any]:
    """Replay ``events`` and report the state at ``at_ms`` (``None``: run on).

    The path ``chukker replay`` and :func:`chukker.record.replay` take: ``events`` as
    their classes (a record's dicts are typed in one msgspec call), folded, then reported,
    the collector waiting (:func:`collector_waits`).
    """
    fold = Fold(setup)
    fold.feed(events, until_ms=INF if at_ms is None else at_ms)
    core = fold.core
    if at_ms is None:
        core.advance(INF)
        return _report(fold, core, core.now)
    core.advance(at_ms)
    core.now = max(core.now, at_ms)
    return _report(fold, core, at_ms)


def check(setup: Setup, events: Sequence[Mapping[str, Any]]) -> list[EngineError]:
    """Every refused event of a record (lenient mode), in order."""
    fold = Fold(setup, lenient=True)
    fold.feed(events)
    return list(fold.problems)
