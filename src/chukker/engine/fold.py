"""The fold: a list of event dicts replayed into a :class:`~chukker.engine.core.Core`,
with ``undo`` and lenient checking (internal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chukker.engine.core import CODES, HANDLERS, Core, handle
from chukker.engine.errors import EngineError, show
from chukker.engine.setup import Setup
from chukker.engine.state import (
    INF,
    Refused,
    to_ms,
)


class Fold:
    """Replays a list of event dicts into a :class:`Core`, handling ``undo``.

    ``lenient`` collects refused events instead of stopping at the first.
    """

    def __init__(self, setup: Setup, *, lenient: bool = False) -> None:
        self.setup = setup
        self.lenient = lenient
        self.events: list[Mapping[str, Any]] = []
        self.refused: set[int] = set()  # 0-based
        self.cancelled: set[int] = set()  # 0-based, cancelled by an effective undo
        self.undo_of: dict[int, int] = {}  # undo event (0-based) -> target (0-based)
        self.problems: list[EngineError] = []
        self.core = Core(setup)
        #: answers that depend on the log only, keyed by its length (see ``match._undo_ok``)
        self.memo: dict[str, tuple[int, Any]] = {}

    def apply(self, ev: Mapping[str, Any]) -> None:
        """Append one event (its index is ``len(events) + 1``); raise if refused.

        On a refusal ``core`` may be left half-changed: callers that go on (the live
        :class:`~chukker.engine.Match`) apply to a copy (:meth:`apply_safely`).
        """
        i = len(self.events) + 1
        core = self.core
        try:
            if type(ev) is not dict:
                if not isinstance(ev, Mapping):
                    raise Refused("not_an_object")
                ev = dict(ev)  # the handlers read dicts (the record's events are)
            typ = ev.get("type")
            at = ev.get("at")
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
            if typ == "undo":
                self.events.append(ev)
                try:
                    self._undo(ev, t, i)
                except BaseException:
                    self.events.pop()
                    raise
                return
            handler = HANDLERS.get(typ) if isinstance(typ, str) else None
            if handler is None:
                raise Refused("unknown_event_type", value=show(typ))
            if t >= core.deadline:
                core.advance(t)
            handler(core, ev, t, i)
            core.last_at = core.now = t
            core.reschedule()
        except Refused as r:
            raise _error(i, ev, r) from None
        self.events.append(ev)

    def apply_safely(self, ev: Mapping[str, Any]) -> None:
        """:meth:`apply`, leaving everything as it was when ``ev`` is refused."""
        keep = self.core
        self.core = keep.copy()
        try:
            self.apply(ev)
        except BaseException:
            self.core = keep
            raise

    def verify(self, ev: Mapping[str, Any]) -> None:
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

    def _time(self, j: int) -> int:
        """The time of accepted event ``j`` (0-based), in ms."""
        return to_ms(self.events[j]["at"])

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

    def _undo(self, ev: dict[str, Any], t: int, i: int) -> None:
        target = ev.get("event")
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
        core = self._refold(cancelled, undo_of, last, undoing=target)
        core.advance(t)
        core.last_at = t
        if core.now < t:
            core.now = t
        self.cancelled = cancelled
        self.undo_of = undo_of
        self.core = core

    def feed(self, events: Sequence[Mapping[str, Any]], until_ms: float = INF) -> None:
        """Apply events in order (those after ``until_ms`` are left out)."""
        apply = self.apply
        if until_ms == INF and not self.lenient:
            self._feed_all(events)
            return
        for ev in events:
            if until_ms != INF:
                try:
                    t = to_ms(ev.get("at"))
                except (Refused, AttributeError):
                    t = -1
                if t > until_ms:
                    break
            try:
                apply(ev)
            except EngineError as e:
                if not self.lenient:
                    raise
                self.problems.append(e)
                self.events.append(ev)
                self.refused.add(len(self.events) - 1)
                self._rebuild()

    def _feed_all(self, events: Sequence[Mapping[str, Any]]) -> None:
        """:meth:`apply` each event, in one loop: the replay's hot path.

        The common event (a dict, ``at`` a number of seconds with ms precision, a known
        type, not an ``undo``) is applied here; any other goes through :meth:`apply`,
        which refuses it or handles the ``undo``. The clock's primitives keep
        ``deadline`` up to date (:meth:`Core.reschedule`), so it is not recomputed after
        each event; ``tests/engine/test_fast_paths.py`` holds this loop to :meth:`apply`.
        """
        codes = CODES
        log = self.events  # appended to directly (natively where compiled), not by a bound method
        core = self.core
        i = len(self.events)
        for ev in events:
            i += 1
            if type(ev) is dict:
                typ = ev.get("type")
                at: Any = ev.get("at")
                tat = type(at)
                code = codes.get(typ, -1) if type(typ) is str else -1
                if code >= 0:
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
                            handle(core, code, ev, t, i)
                        except Refused as r:
                            raise _error(i, ev, r) from None
                        core.last_at = core.now = t
                        log.append(ev)
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
    ) -> Core:
        """A fresh :class:`Core` from the first ``upto`` events, less the refused, the
        ``cancelled`` and the undo events (whose effect ``cancelled`` already holds)."""
        core = Core(self.setup)
        for j in range(upto):
            if j in cancelled or j in self.refused:
                continue
            tj = self._time(j)
            if j in undo_of:
                core.advance(tj)
                core.last_at = max(core.last_at, tj)
                continue
            e: Any = self.events[j]  # accepted: a dict
            try:
                if tj >= core.deadline:
                    core.advance(tj)
                HANDLERS[e["type"]](core, e, tj, j + 1)
            except Refused as r:
                if undoing is None:
                    raise
                raise Refused(
                    "undo_leaves_refused",
                    target=undoing,
                    event=j + 1,
                    type=str(e["type"]),
                    at_ms=tj,
                    cause={"code": r.code, "params": r.params},
                ) from None
            core.last_at = tj
            core.reschedule()
        return core


def _error(i: int, ev: Any, r: Refused) -> EngineError:
    typ_s = ev.get("type") if isinstance(ev, Mapping) else None
    at_raw = ev.get("at") if isinstance(ev, Mapping) else None
    try:
        at_ms: int | None = to_ms(at_raw)
    except Refused:
        at_ms = None
    typ = typ_s if type(typ_s) is str and len(typ_s) <= 40 else show(typ_s)
    return EngineError(i, typ, at_ms, r.code, r.params)
