"""The public face of the engine: :class:`Match`, an append-only log of operator events.

Every operator action has a check and a do, as in python-chess and PokerKit:
``verify_goal(...)`` raises :class:`EngineError` with the reason,
``can_goal(...)`` answers yes or no, ``goal(...)`` verifies, applies and
returns the immutable :class:`Event` it appended. Time is an argument, in
integer milliseconds since the record started.

>>> from chukker.engine import Match, Setup
>>> players = [{"no": n, "handicap": 1} for n in (1, 2, 3)]
>>> m = Match(Setup.from_dict({"options": {"handicap": False}, "teams": {
...     "A": {"captain": 1, "players": players}, "B": {"captain": 1, "players": players}}}))
>>> m.bowl_in(0).type
<EventType.BOWL_IN: 'bowl_in'>
>>> m.goal(61_250, "A", 2).at_ms
61250
>>> m.can_goal(460_000, "B")
False
>>> m.verify_goal(460_000, "B")
Traceback (most recent call last):
...
chukker.engine.errors.EngineError: event 3 (goal at 460.000 s): the ball is dead: period 1 ...
>>> r = m.report(460_000)
>>> r["status"], r["score"], r["horns"]
('interval', {'A': 1, 'B': 0}, [{'at': 450.0, 'period': 1, 'kind': 'end'}])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from chukker.engine.allowed import allowed_now, probe
from chukker.engine.core import Core
from chukker.engine.errors import EngineError
from chukker.engine.fold import Fold
from chukker.engine.setup import Setup
from chukker.engine.state import INF
from chukker.engine.types import EventType, Status, WhistleSource


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
    if fold.events[-1].get("type") != "undo":
        return True
    cached = fold.memo.get("undo_ok")
    if cached is not None and cached[0] == n:
        return bool(cached[1])  # the refold does not depend on the instant
    try:
        fold.verify({"at": at_ms / 1000, "type": "undo", "event": n})
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
        r["allowed"] = allowed_now(core, len(fold.events), at_ms, _undo_ok(fold, at_ms))
    return r


def _ev(type_: EventType, at_ms: int, **fields: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"at": at_ms / 1000, "type": str(type_)}
    d.update({k: v for k, v in fields.items() if v is not None})
    return d


def _whistle_ev(at_ms: int, reason: str | None, source: WhistleSource | None) -> dict[str, Any]:
    return _ev(EventType.WHISTLE, at_ms, reason=reason,
               source=None if source is None else str(source))


def _goal_ev(at_ms: int, team: str, player: int | None, two_point: bool) -> dict[str, Any]:
    return _ev(EventType.GOAL, at_ms, team=team, player=player, two_point=two_point or None)


def _order_ev(at_ms: int, first: str, order: Mapping[str, Sequence[int]]) -> dict[str, Any]:
    return _ev(
        EventType.SHOOTOUT_ORDER, at_ms, first=first, order={k: list(v) for k, v in order.items()}
    )


def _shot_ev(
    at_ms: int, team: str, player: int, result: str, reached_end_wall: bool | None
) -> dict[str, Any]:
    return _ev(
        EventType.SHOT,
        at_ms,
        team=team,
        player=player,
        result=result,
        reached_end_wall=reached_end_wall,
    )


class Match:
    """A match: its set-up and the append-only list of operator events."""

    def __init__(self, setup: Setup, events: Iterable[Mapping[str, Any]] = ()) -> None:
        self.setup = setup
        self._fold = Fold(setup)
        self._fold.feed(list(events))

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
        return tuple(dict(e) for e in self._fold.events)

    def event(self, index: int) -> Event:
        """Event ``index`` (counting from 1) as an immutable :class:`Event`."""
        return _event(index, self._fold.events[index - 1])

    def __len__(self) -> int:
        return len(self._fold.events)

    def verify(self, ev: Mapping[str, Any]) -> None:
        """Raise :class:`EngineError` if ``ev`` would be refused now; change nothing.

        Costs one event, not the log (an ``undo`` refolds the log)."""
        self._fold.verify(ev)

    def can(self, ev: Mapping[str, Any]) -> bool:
        try:
            self.verify(ev)
        except EngineError:
            return False
        return True

    def apply(self, ev: Mapping[str, Any]) -> dict[str, Any]:
        """Append ``ev`` (with ``at`` in seconds); raise :class:`EngineError` and change
        nothing if it is refused. Returns the stored event dict."""
        stored = dict(ev) if isinstance(ev, Mapping) else ev
        self._fold.apply_safely(stored)
        return dict(stored)

    def allowed(self, at_ms: int) -> list[str]:
        """The actions an operator could send at ``at_ms`` (the report's ``allowed``)."""
        if at_ms < self._fold.core.last_at:
            return []
        c = self.state_at(at_ms)
        return allowed_now(c, len(self._fold.events), at_ms, _undo_ok(self._fold, at_ms))

    def probe(self, type_: str, at_ms: int) -> dict[str, Any] | None:
        """The canonical event of ``type_`` that ``allowed`` tries at ``at_ms``."""
        if at_ms < self._fold.core.last_at:
            return None
        c = self.state_at(at_ms)
        return probe(c, len(self._fold.events), type_, at_ms)

    def _do(self, ev: dict[str, Any]) -> Event:
        self.apply(ev)
        return self.event(len(self._fold.events))

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
        fold.feed(self._fold.events, until_ms=at_ms)
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
        doc["events"] = [dict(e) for e in self._fold.events]
        return doc

    # ------------------------------------------------------------ actions
    def verify_bowl_in(self, at_ms: int) -> None:
        self.verify(_ev(EventType.BOWL_IN, at_ms))

    def can_bowl_in(self, at_ms: int) -> bool:
        return self.can(_ev(EventType.BOWL_IN, at_ms))

    def bowl_in(self, at_ms: int) -> Event:
        """Rule 8: the ball leaves the umpire's hand; starts or resumes the clock."""
        return self._do(_ev(EventType.BOWL_IN, at_ms))

    def verify_whistle(
        self, at_ms: int, reason: str | None = None, source: WhistleSource | None = None
    ) -> None:
        self.verify(_whistle_ev(at_ms, reason, source))

    def can_whistle(
        self, at_ms: int, reason: str | None = None, source: WhistleSource | None = None
    ) -> bool:
        return self.can(_whistle_ev(at_ms, reason, source))

    def whistle(
        self, at_ms: int, reason: str | None = None, source: WhistleSource | None = None
    ) -> Event:
        """Rule 5: the whistle stops play and the clock (``source``: where it was heard,
        :class:`WhistleSource`; ``None``, a key press)."""
        return self._do(_whistle_ev(at_ms, reason, source))

    def verify_goal(
        self, at_ms: int, team: str, player: int | None = None, *, two_point: bool = False
    ) -> None:
        self.verify(_goal_ev(at_ms, team, player, two_point))

    def can_goal(
        self, at_ms: int, team: str, player: int | None = None, *, two_point: bool = False
    ) -> bool:
        return self.can(_goal_ev(at_ms, team, player, two_point))

    def goal(
        self, at_ms: int, team: str, player: int | None = None, *, two_point: bool = False
    ) -> Event:
        """Rule 6: a goal; the clock does not stop (Rule 5)."""
        return self._do(_goal_ev(at_ms, team, player, two_point))

    def verify_foul(self, at_ms: int, team: str, penalty: str | int, **fields: Any) -> None:
        self.verify(_ev(EventType.FOUL, at_ms, team=team, penalty=str(penalty), **fields))

    def can_foul(self, at_ms: int, team: str, penalty: str | int, **fields: Any) -> bool:
        return self.can(_ev(EventType.FOUL, at_ms, team=team, penalty=str(penalty), **fields))

    def foul(self, at_ms: int, team: str, penalty: str | int, **fields: Any) -> Event:
        """Rule 9/10: a foul by ``team`` with its penalty (``player``, ``clause``,
        ``card``, ``spot`` and, for Penalty 7, ``disabled``/``removed``/``substitute``)."""
        return self._do(_ev(EventType.FOUL, at_ms, team=team, penalty=str(penalty), **fields))

    def verify_free_hit(self, at_ms: int) -> None:
        self.verify(_ev(EventType.FREE_HIT, at_ms))

    def can_free_hit(self, at_ms: int) -> bool:
        return self.can(_ev(EventType.FREE_HIT, at_ms))

    def free_hit(self, at_ms: int) -> Event:
        """The pending penalty hit is taken; the clock restarts (reset to 5 s if less)."""
        return self._do(_ev(EventType.FREE_HIT, at_ms))

    def verify_timeout(self, at_ms: int, reason: str, **fields: Any) -> None:
        self.verify(_ev(EventType.TIMEOUT, at_ms, reason=reason, **fields))

    def can_timeout(self, at_ms: int, reason: str, **fields: Any) -> bool:
        return self.can(_ev(EventType.TIMEOUT, at_ms, reason=reason, **fields))

    def timeout(self, at_ms: int, reason: str, **fields: Any) -> Event:
        """Rule 16: a time-out (``injury`` with ``team``/``player`` starts the 15 minutes)."""
        return self._do(_ev(EventType.TIMEOUT, at_ms, reason=reason, **fields))

    def verify_forfeit(self, at_ms: int, team: str) -> None:
        self.verify(_ev(EventType.FORFEIT, at_ms, team=team))

    def can_forfeit(self, at_ms: int, team: str) -> bool:
        return self.can(_ev(EventType.FORFEIT, at_ms, team=team))

    def forfeit(self, at_ms: int, team: str) -> Event:
        """Penalty 9 by the committee: the match is forfeited by ``team``."""
        return self._do(_ev(EventType.FORFEIT, at_ms, team=team))

    def verify_shootout_order(
        self, at_ms: int, first: str, order: Mapping[str, Sequence[int]]
    ) -> None:
        self.verify(_order_ev(at_ms, first, order))

    def can_shootout_order(
        self, at_ms: int, first: str, order: Mapping[str, Sequence[int]]
    ) -> bool:
        return self.can(_order_ev(at_ms, first, order))

    def shootout_order(self, at_ms: int, first: str, order: Mapping[str, Sequence[int]]) -> Event:
        """Rule 5 shootout: the team hitting first (by lot) and each team's order."""
        return self._do(_order_ev(at_ms, first, order))

    def verify_shot(
        self,
        at_ms: int,
        team: str,
        player: int,
        result: str,
        reached_end_wall: bool | None = None,
    ) -> None:
        self.verify(_shot_ev(at_ms, team, player, result, reached_end_wall))

    def can_shot(
        self,
        at_ms: int,
        team: str,
        player: int,
        result: str,
        reached_end_wall: bool | None = None,
    ) -> bool:
        return self.can(_shot_ev(at_ms, team, player, result, reached_end_wall))

    def shot(
        self,
        at_ms: int,
        team: str,
        player: int,
        result: str,
        reached_end_wall: bool | None = None,
    ) -> Event:
        """One shootout attempt: ``goal``, ``miss`` or ``forfeit``."""
        return self._do(_shot_ev(at_ms, team, player, result, reached_end_wall))

    def verify_move_to_15(self, at_ms: int) -> None:
        self.verify(_ev(EventType.MOVE_TO_15, at_ms))

    def can_move_to_15(self, at_ms: int) -> bool:
        return self.can(_ev(EventType.MOVE_TO_15, at_ms))

    def move_to_15(self, at_ms: int) -> Event:
        """Rule 5: the umpires move the shootout ball to the 15-yard line."""
        return self._do(_ev(EventType.MOVE_TO_15, at_ms))

    def substitute(self, at_ms: int, team: str, out: int, in_: int) -> Event:
        """Rule 3: alternate ``in_`` takes ``out``'s place (only while the ball is dead)."""
        return self._do(_ev(EventType.SUBSTITUTE, at_ms, team=team, out=out, **{"in": in_}))

    def can_substitute(self, at_ms: int, team: str, out: int, in_: int) -> bool:
        return self.can(_ev(EventType.SUBSTITUTE, at_ms, team=team, out=out, **{"in": in_}))

    def designate(self, at_ms: int, team: str, player: int) -> Event:
        """Penalty 7: the fouled team's captain names the fouling team's player to leave."""
        return self._do(_ev(EventType.DESIGNATE, at_ms, team=team, player=player))

    def can_designate(self, at_ms: int, team: str, player: int) -> bool:
        return self.can(_ev(EventType.DESIGNATE, at_ms, team=team, player=player))

    def return_(self, at_ms: int, team: str, player: int) -> Event:
        """Penalty 8: the player (or mount) returns once the equipment is put right."""
        return self._do(_ev(EventType.RETURN, at_ms, team=team, player=player))

    def can_return(self, at_ms: int, team: str, player: int) -> bool:
        return self.can(_ev(EventType.RETURN, at_ms, team=team, player=player))

    def clock(self, at_ms: int, remaining_ms: int, reason: str) -> Event:
        """The timekeeper sets the stopped clock (the umpire's direction)."""
        return self._do(
            _ev(EventType.CLOCK, at_ms, remaining=remaining_ms / 1000, reason=reason)
        )

    def can_clock(self, at_ms: int, remaining_ms: int, reason: str) -> bool:
        return self.can(_ev(EventType.CLOCK, at_ms, remaining=remaining_ms / 1000, reason=reason))

    # --------------------------------------------------------- mounts (record 1.2)
    @staticmethod
    def _mount_ev(
        at_ms: int, team: str, player: int, mount: str, consent: bool, swap: bool
    ) -> dict[str, Any]:
        return _ev(EventType.MOUNT, at_ms, team=team, player=player, mount=mount,
                   umpire_consent=consent or None, swap=swap or None)

    def verify_mount(
        self, at_ms: int, team: str, player: int, mount: str, umpire_consent: bool = False,
        swap: bool = False,
    ) -> None:
        """Raise :class:`EngineError` if ``player`` may not ride ``mount`` now (Rules 2, 5)."""
        self.verify(self._mount_ev(at_ms, team, player, mount, umpire_consent, swap))

    def can_mount(
        self, at_ms: int, team: str, player: int, mount: str, umpire_consent: bool = False,
        swap: bool = False,
    ) -> bool:
        return self.can(self._mount_ev(at_ms, team, player, mount, umpire_consent, swap))

    def mount(
        self, at_ms: int, team: str, player: int, mount: str, umpire_consent: bool = False,
        swap: bool = False,
    ) -> Event:
        """From now on ``player`` rides ``mount`` (only while the ball is dead); ``swap``:
        the teammate riding it takes ``player``'s mount in the same instant (record 1.3)."""
        return self._do(self._mount_ev(at_ms, team, player, mount, umpire_consent, swap))

    def verify_mount_out(self, at_ms: int, team: str, mount: str, reason: str) -> None:
        self.verify(_ev(EventType.MOUNT_OUT, at_ms, team=team, mount=mount, reason=reason))

    def can_mount_out(self, at_ms: int, team: str, mount: str, reason: str) -> bool:
        return self.can(_ev(EventType.MOUNT_OUT, at_ms, team=team, mount=mount, reason=reason))

    def mount_out(self, at_ms: int, team: str, mount: str, reason: str) -> Event:
        """Rule 2, Rule 16: ``mount`` leaves the game (``vice``, ``blood``, ``runaway``,
        ``injury`` or ``other``); its rider changes before play resumes."""
        return self._do(_ev(EventType.MOUNT_OUT, at_ms, team=team, mount=mount, reason=reason))

    def verify_undo(self, at_ms: int, event: int) -> None:
        self.verify(_ev(EventType.UNDO, at_ms, event=event))

    def can_undo(self, at_ms: int, event: int) -> bool:
        return self.can(_ev(EventType.UNDO, at_ms, event=event))

    def undo(self, at_ms: int, event: int) -> Event:
        """Cancel event ``event`` (counting from 1); it stays in the record."""
        return self._do(_ev(EventType.UNDO, at_ms, event=event))


def replay(
    setup: Setup,
    events: Sequence[Mapping[str, Any]],
    at_ms: int | None = None,
) -> dict[str, Any]:
    """Replay ``events`` and report the state at ``at_ms`` (``None``: run on).

    The fast path used by ``chukker replay``: no :class:`Event` objects are built.
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
