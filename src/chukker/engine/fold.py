"""The fold: a list of events replayed into a :class:`~chukker.engine.core.Core`, with
``undo`` and lenient checking (internal).

An event is one of :mod:`chukker.engine.events`' classes; the fold matches on the class.
A dict as it stands in a record is typed once, where it enters (:func:`typed`,
:func:`typed_all`), and each accepted event is kept as a :class:`Recorded`: its position,
its time in whole milliseconds, and the event.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any, final

import msgspec

from chukker.engine.core import CLASS_CODES, Core, handle
from chukker.engine.errors import EngineError, show
from chukker.engine.events import (
    BY_TAG,
    NOT_CONVERTED,
    WIRE_FIELDS,
    Event,
    Undo,
    convert_events,
    tag_of,
)
from chukker.engine.setup import Setup
from chukker.engine.state import (
    INF,
    Refused,
    to_ms,
)


@final
class Recorded:
    """An event as the fold holds it: its position (from 1), its time in whole
    milliseconds, and the event (``None`` for one refused before it could be read, kept in
    lenient mode only to hold its place)."""

    __slots__ = ("at_ms", "event", "index")

    def __init__(self, index: int, at_ms: int, event: Event | None) -> None:
        self.index = index
        self.at_ms = at_ms
        self.event = event


def typed(ev: object) -> Event:
    """``ev`` as its event class: an :class:`Event` as it is; a record's dict converted
    by msgspec, or, when a field's value is not what the definition says, built field by
    field, unchecked, for the handler to refuse in the engine's words (a missing field
    reads ``None``, a field of no definition is left out).

    >>> typed({"at": 1, "type": "goal", "team": "A"})
    Goal(at=1.0, team='A', player=None, two_point=None)
    >>> typed({"at": 1, "type": "goal", "team": 7}).team
    7
    """
    if type(ev) is not dict:  # the common case first: a record's (or a body's) dict
        if isinstance(ev, Event):
            return ev
        if not isinstance(ev, Mapping):
            raise Refused("not_an_object")
    typ = ev.get("type")
    cls = BY_TAG.get(typ) if type(typ) is str else None
    if cls is None:
        raise Refused("unknown_event_type", value=show(typ))
    try:
        out: Event = msgspec.convert(ev, cls)
        return out
    except NOT_CONVERTED:  # the handler words the refusal
        pass
    fields: dict[str, Any] = {attr: ev.get(wire) for wire, attr in WIRE_FIELDS[cls]}
    fields["at"] = ev.get("at")
    return cls(**fields)


def typed_all(events: Sequence[Any]) -> list[Any]:
    """Each of ``events`` as its class, converted by msgspec in one call; from the first
    that msgspec does not take as it is, the rest as they came (:meth:`Fold.apply` types
    each, or refuses it, in turn)."""
    if type(events) is not list:
        events = list(events)
    converted, k = convert_events(events)
    if k == len(events):
        return converted
    head: list[Any] = convert_events(events[:k])[0] if k else []
    return head + events[k:]


def _at_of(ev: object) -> Any:
    """The raw ``at`` of an event or a record's dict (``None`` if neither)."""
    if type(ev) is dict:
        return ev.get("at")
    if isinstance(ev, Event):
        a: Any = ev
        return a.at
    if isinstance(ev, Mapping):
        return ev.get("at")
    return None


class Fold:
    """Replays a list of events into a :class:`Core`, handling ``undo``.

    ``lenient`` collects refused events instead of stopping at the first.
    """

    def __init__(self, setup: Setup, *, lenient: bool = False) -> None:
        self.setup = setup
        self.lenient = lenient
        self.events: list[Recorded] = []
        self.refused: set[int] = set()  # 0-based
        self.cancelled: set[int] = set()  # 0-based, cancelled by an effective undo
        self.undo_of: dict[int, int] = {}  # undo event (0-based) -> target (0-based)
        self.problems: list[EngineError] = []
        self.core = Core(setup)
        #: answers that depend on the log only, keyed by its length (see ``match._undo_ok``)
        self.memo: dict[str, tuple[int, Any]] = {}

    def apply(self, ev: Event | Mapping[str, Any]) -> Event:
        """Append one event (its index is ``len(events) + 1``) and return it as its class;
        raise if refused.

        On a refusal ``core`` may be left half-changed: callers that go on (the live
        :class:`~chukker.engine.Match`) apply to a copy (:meth:`apply_safely`).
        """
        i = len(self.events) + 1
        core = self.core
        try:
            if (type(ev) is not dict and not isinstance(ev, Event)
                    and not isinstance(ev, Mapping)):
                raise Refused("not_an_object")
            at = _at_of(ev)
            # fast path for the common case: a float of seconds with ms precision
            if type(at) is float and 0.0 <= at < 1e9:
                x = at * 1000.0
                t = int(x + 0.5)
                if not -1e-3 < x - t < 1e-3:
                    t = to_ms(at)
            else:
                t = to_ms(at)
            if t < core.last_at:
                raise Refused("time_backwards", at_ms=t, last_ms=core.last_at)
            e = typed(ev)
            if isinstance(e, Undo):
                self.events.append(Recorded(i, t, e))
                try:
                    self._undo(e, t, i)
                except BaseException:
                    self.events.pop()
                    raise
                return e
            code = CLASS_CODES[type(e)]
            if t >= core.deadline:
                core.advance(t)
            handle(core, code, e, t, i)
            core.last_at = core.now = t
            core.reschedule()
        except Refused as r:
            raise _error(i, ev, r) from None
        self.events.append(Recorded(i, t, e))
        return e

    def apply_safely(self, ev: Event | Mapping[str, Any]) -> Event:
        """:meth:`apply`, leaving everything as it was when ``ev`` is refused."""
        keep = self.core
        self.core = keep.copy()
        try:
            return self.apply(ev)
        except BaseException:
            self.core = keep
            raise

    def verify(self, ev: Event | Mapping[str, Any]) -> None:
        """Raise :class:`EngineError` if ``ev`` would be refused now; change nothing."""
        keep = (self.core, len(self.events), set(self.cancelled), dict(self.undo_of))
        self.core = keep[0].copy()
        try:
            self.apply(ev)
        finally:
            self.core = keep[0]
            del self.events[keep[1] :]
            self.cancelled = keep[2]
            self.undo_of = keep[3]

    def typed_events(self) -> list[Event]:
        """The accepted events, in order (cancelled ones and undos included; not the
        refused, which lenient mode alone keeps)."""
        return [r.event for r in self.events if r.event is not None]

    def _time(self, j: int) -> int:
        """The time of accepted event ``j`` (0-based), in ms."""
        return self.events[j].at_ms

    def effective_cancelled(self, undo_of: Mapping[int, int]) -> set[int]:
        """The events cancelled by the undos in ``undo_of``, at any depth: an event counts
        unless an undo that itself counts targets it (undos point back, so one pass from
        the end decides each)."""
        targeted: dict[int, list[int]] = {}
        for u, k in undo_of.items():
            targeted.setdefault(k, []).append(u)
        n = len(self.events)
        counts = [True] * n
        for j in range(n - 1, -1, -1):
            us = targeted.get(j)
            if us and any(counts[u] for u in us):
                counts[j] = False
        return {j for j in range(n) if not counts[j]}

    def _undo(self, ev: Undo, t: int, i: int) -> None:
        u: Any = ev  # its fields unchecked where no one checked them
        target = u.event
        if type(target) is not int:
            raise Refused("undo_target_invalid", value=show(target))
        if not 1 <= target < i:
            raise Refused("undo_not_earlier", target=target, index=i)
        k = target - 1
        if k in self.refused:
            raise Refused("undo_target_refused", target=target)
        if k in self.cancelled:
            raise Refused("undo_already_undone", target=target)
        last = len(self.events) - 1  # the undo itself is the last appended
        undo_of = dict(self.undo_of)
        undo_of[last] = k
        cancelled = self.effective_cancelled(undo_of)
        # the events whose standing the undo changes: the target, or what an undo of an
        # undo reinstates; every accepted event after the first of them must keep its place
        changed = (cancelled ^ self.cancelled) | {k, last}
        later = Later(self, self.core, cancelled | self.cancelled, changed, min(changed), target)
        core = self._refold(cancelled, undo_of, last, undoing=target, later=later)
        core.advance(t)
        core.last_at = t
        if core.now < t:
            core.now = t
        self.cancelled = cancelled
        self.undo_of = undo_of
        self.core = core

    def feed(self, events: Sequence[Event | Mapping[str, Any]], until_ms: float = INF) -> None:
        """Apply events in order (those after ``until_ms`` are left out)."""
        apply = self.apply
        if until_ms == INF and not self.lenient:
            self._feed_all(events)
            return
        for ev in events:
            if until_ms != INF:
                try:
                    t = to_ms(_at_of(ev))
                except Refused:
                    t = -1
                if t > until_ms:
                    break
            try:
                apply(ev)
            except EngineError as e:
                if not self.lenient:
                    raise
                self.problems.append(e)
                self.events.append(Recorded(len(self.events) + 1, -1, None))
                self.refused.add(len(self.events) - 1)
                self._rebuild()

    def _feed_all(self, events: Sequence[Event | Mapping[str, Any]]) -> None:
        """:meth:`apply` each event, in one loop: the replay's hot path.

        A record's dicts are typed in one call first (:func:`typed_all`). The common event
        (of a handled class, ``at`` a number of seconds with ms precision, not an
        ``undo``) is applied here; any other goes through :meth:`apply`, which types it,
        refuses it or handles the ``undo``. The clock's primitives keep ``deadline`` up to
        date (:meth:`Core.reschedule`), so it is not recomputed after each event;
        ``tests/engine/test_fast_paths.py`` holds this loop to :meth:`apply`.
        """
        if events and not isinstance(events[0], Event):
            events = typed_all(events)
        codes = CLASS_CODES
        log = self.events  # appended to directly (natively where compiled), not by a bound method
        core = self.core
        i = len(self.events)
        for ev in events:
            i += 1
            code = codes.get(type(ev), -1)  # type: ignore[arg-type]
            if code >= 0:
                e: Any = ev  # its fields unchecked where no one checked them
                at: Any = e.at
                tat = type(at)
                ok = False
                if tat is float:
                    af: float = at  # a native double in the compiled loop
                    if 0.0 <= af < 1e9:
                        x = af * 1000.0
                        t = int(x + 0.5)
                        ok = -1e-3 < x - t < 1e-3
                elif tat is int:
                    ai: int = at
                    if 0 <= ai < 1_000_000_000:
                        t = ai * 1000
                        ok = True
                if ok and t >= core.last_at:
                    try:
                        if t >= core.deadline:
                            core.advance(t)
                        handle(core, code, e, t, i)
                    except Refused as r:
                        raise _error(i, ev, r) from None
                    core.last_at = core.now = t
                    log.append(Recorded(i, t, e))
                    continue
            self.apply(ev)  # the uncommon event (or an undo, which refolds: a new core)
            core = self.core

    def _rebuild(self) -> None:
        """After a refused event in lenient mode, refold the accepted ones."""
        self.core = self._refold(self.cancelled, self.undo_of, len(self.events))

    def _refold(
        self,
        cancelled: set[int],
        undo_of: Mapping[int, int],
        upto: int,
        undoing: int | None = None,
        later: Later | None = None,
    ) -> Core:
        """A fresh :class:`Core` from the first ``upto`` events, less the refused, the
        ``cancelled`` and the undo events (whose effect ``cancelled`` already holds).

        With ``later`` (an undo's refold) it refuses the undo when an accepted event after
        the one it cancels or reinstates would be refused, or change its period or lose
        its restart of play (:class:`Later`): the first such event is named."""
        core = Core(self.setup)
        events = self.events
        codes = CLASS_CODES
        skip = cancelled | self.refused
        for j in range(upto):
            if j in skip:
                continue
            rec = events[j]  # accepted: an event, its time checked
            tj = rec.at_ms
            if j in undo_of:
                core.advance(tj)
                core.last_at = max(core.last_at, tj)
                continue
            e: Any = rec.event
            try:
                if tj >= core.deadline:
                    core.advance(tj)
                handle(core, codes[type(e)], e, tj, j + 1)
            except Refused as r:
                if undoing is None:
                    raise
                if later is not None:
                    later.check(core, j)  # an earlier event that moves is named first
                raise Refused(
                    "undo_leaves_refused",
                    target=undoing,
                    event=j + 1,
                    type=tag_of(e),
                    at_ms=tj,
                    cause={"code": r.code, "params": r.params},
                ) from None
            core.last_at = tj
        if later is not None:
            later.check(core, upto)
        return core


class Later:
    """An undo's promise to the events after it (``docs/engine.md``, "An undo does not
    rewrite the later events"): each accepted event after the first one whose standing the
    undo changes keeps its period, its side of the period's end, and its restart of play.

    ``before`` is the fold's state before the undo; :meth:`check` compares it with the
    refold's over the first ``upto`` events, in a few steps per period and per restart,
    not per event (the undo's refold is the cost; ``benchmarks/replay.py --undo``).
    """

    def __init__(
        self,
        fold: Fold,
        before: Core,
        skip: set[int],
        changed: set[int],
        lo: int,
        target: int,
    ) -> None:
        self.fold = fold
        self.before = before
        self.skip = skip  # cancelled before or after the undo: no standing to keep
        self.changed = changed
        self.lo = lo
        self.target = target

    def counts(self, j: int) -> bool:
        """Whether event ``j`` (0-based) is one whose place is kept."""
        f = self.fold
        return not (
            j <= self.lo
            or j in self.skip
            or j in self.changed
            or j in f.refused
            or j in f.undo_of
        )

    def check(self, after: Core, upto: int) -> None:
        """Raise the refusal for the first event before ``upto`` that would change."""
        found = [
            x
            for x in (self.moved(after, upto), self.ended(after, upto), self.lost(after, upto))
            if x is not None
        ]
        if not found:
            return
        j, code, params = min(found, key=lambda x: x[0])
        e = self.fold.events[j].event
        raise Refused(
            code,
            target=self.target,
            event=j + 1,
            type=tag_of(e) if e is not None else "",
            at_ms=self.fold._time(j),
            **params,
        )

    def moved(self, after: Core, upto: int) -> tuple[int, str, dict[str, Any]] | None:
        """The first counted event whose period number changes."""
        olds, news = self.before.period_from, after.period_from
        lo = self.lo
        pts = sorted({b - 1 for b in olds if lo < b - 1 < upto}
                     | {b - 1 for b in news if lo < b - 1 < upto} | {lo + 1})
        for n, start in enumerate(pts):
            if start >= upto:
                break
            po, pn = bisect_right(olds, start + 1), bisect_right(news, start + 1)
            if po == pn:
                continue
            stop = pts[n + 1] if n + 1 < len(pts) else upto
            for j in range(start, stop):
                if self.counts(j):
                    if pn == 0:
                        return j, "undo_moves_before_start", {"from_period": po}
                    return j, "undo_moves_later", {"from_period": po, "to_period": pn}
        return None

    def ended(self, after: Core, upto: int) -> tuple[int, str, dict[str, Any]] | None:
        """The first counted event that moves across the end of its period (same period
        number; called before or after :meth:`moved` alike: the minimum is named)."""
        olds = self.before.period_from
        old_p, new_p = self.before.periods, after.periods
        for p in range(1, min(len(old_p), len(new_p)) + 1):
            eo, en = old_p[p - 1][2], new_p[p - 1][2]
            if eo == en:
                continue
            start = max(self.lo + 1, olds[p - 1] - 1) if p - 1 < len(olds) else upto
            stop = min(upto, olds[p] - 1) if p < len(olds) else upto
            for j in range(start, stop):
                if not self.counts(j):
                    continue
                t = self.fold._time(j)
                a = eo is not None and eo < t
                b = en is not None and en < t
                if a != b:
                    return j, "undo_moves_past_end", {"period": p}
                if a and b:
                    break
        return None

    def lost(self, after: Core, upto: int) -> tuple[int, str, dict[str, Any]] | None:
        """The first counted event that restarted play and would no longer: the clock
        would run through the stoppage it ended."""
        gone = set(self.before.restarts).difference(after.restarts)
        for i in sorted(gone):
            if i - 1 >= upto:
                break
            if self.counts(i - 1):
                return i - 1, "undo_takes_restart", {}
        return None


def _error(i: int, ev: Any, r: Refused) -> EngineError:
    if isinstance(ev, Event):
        typ_s: Any = tag_of(ev)
    else:
        typ_s = ev.get("type") if isinstance(ev, Mapping) else None
    at_raw = _at_of(ev)
    try:
        at_ms: int | None = to_ms(at_raw)
    except Refused:
        at_ms = None
    typ = typ_s if type(typ_s) is str and len(typ_s) <= 40 else show(typ_s)
    return EngineError(i, typ, at_ms, r.code, r.params)
