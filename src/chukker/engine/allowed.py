"""What an operator may send now: the canonical probe event of each action and the
actions the state would accept (the report's ``allowed``) (internal)."""

from __future__ import annotations

from typing import Final

from chukker.engine import events as E
from chukker.engine.core import CLASS_CODES, Core, handle
from chukker.engine.events import Event
from chukker.engine.state import (
    BY_FORFEIT,
    IV_SHOOTOUT,
    S_IN_PLAY,
    S_INTERVAL,
    S_SHOOTOUT,
    S_STOPPED,
    SP_ONE,
    Refused,
)
from chukker.engine.types import (
    EventType,
)

#: the actions a console offers, in the order ``allowed`` lists them
ACTIONS: tuple[str, ...] = (
    EventType.BOWL_IN,
    EventType.WHISTLE,
    EventType.GOAL,
    EventType.FOUL,
    EventType.FREE_HIT,
    EventType.TIMEOUT,
    EventType.FORFEIT,
    EventType.SHOOTOUT_ORDER,
    EventType.SHOT,
    EventType.MOVE_TO_15,
    EventType.SUBSTITUTE,
    EventType.DESIGNATE,
    EventType.RETURN,
    EventType.CLOCK,
    EventType.MOUNT,
    EventType.MOUNT_OUT,
    EventType.UNDO,
)


def probe(core: Core, n_events: int, type_: str, at_ms: int) -> Event | None:
    """The canonical event of ``type_`` an operator would send at ``at_ms``: the one
    ``allowed`` tries. ``None`` when no such event can be formed (e.g. no alternate)."""
    at = at_ms / 1000
    a = core.team_ids[0]
    type_ = str(type_)
    if type_ == "bowl_in":
        return E.BowlIn(at=at)
    if type_ == "whistle":
        return E.Whistle(at=at)
    if type_ == "free_hit":
        return E.FreeHit(at=at)
    if type_ == "move_to_15":
        return E.MoveTo15(at=at)
    if type_ == "goal":
        return E.Goal(at=at, team=a)
    if type_ == "foul":
        return E.Foul(at=at, team=a, penalty="3")
    if type_ == "timeout":
        return E.Timeout(at=at, reason="equipment")
    if type_ == "forfeit":
        team = a
        for t in core.team_ids:
            if t not in core.forfeited:
                team = t
                break
        return E.Forfeit(at=at, team=team)
    if type_ == "shootout_order":
        order = {t: sorted(core.playing(t)) for t in core.team_ids}
        if core.opts.shootout_players is SP_ONE:
            order = {t: v[:1] for t, v in order.items()}
        return E.ShootoutOrder(at=at, first=a, order=order)
    if type_ == "shot":
        if not core.so_seq or core.so_pos >= len(core.so_seq):
            return None
        team, player = core.so_seq[core.so_pos]
        return E.Shot(at=at, team=team, player=player, result="miss")
    if type_ == "substitute":
        for t in core.team_ids:
            if len(core.sheet[t]) <= len(core.field[t]):
                continue  # every player on the sheet is on the field: no alternate
            alts = [
                p for p in sorted(core.sheet[t]) if p not in core.field[t] and p not in core.out[t]
            ]
            outs = [
                p
                for p in core.field[t]
                if core.out[t].get(p, {}).get("status") in (None, "retired", "equipment")
            ]
            if alts and outs:
                return E.Substitute(at=at, team=t, out=outs[0], in_=alts[0])
        return None
    if type_ == "designate":
        for t in core.team_ids:
            d = core.designation[t]
            if d is not None:
                return E.Designate(at=at, team=t, player=d["candidates"][0])
        return None
    if type_ == "return":
        for t in core.team_ids:
            if not core.out[t] and not core.mounts_out[t]:
                continue  # no one out
            for p, o in sorted(core.out[t].items()):
                if o["status"] == "equipment":
                    return E.Return(at=at, team=t, player=p)
            for p, m in sorted(core.mounts_out[t].items()):
                if m == "equipment":
                    return E.Return(at=at, team=t, player=p)
        return None
    if type_ == "clock":
        return E.Clock(at=at, remaining=max(core.remaining, 0) / 1000, reason="correction")
    if type_ == "mount":
        for t in core.team_ids:
            for p in core.playing(t) if core.strings[t] else ():
                for m in core.strings[t]:
                    if (m not in core.mounts_gone[t] and core.riding[t].get(p) != m
                            and core.rider(t, m) is None):
                        return E.Mount(at=at, team=t, player=p, mount=m, umpire_consent=True)
        return None
    if type_ == "mount_out":
        for t in core.team_ids:
            for m in core.strings[t]:
                if m not in core.mounts_gone[t]:
                    return E.MountOut(at=at, team=t, mount=m, reason="other")
        return None
    if type_ == "undo":
        if n_events == 0:
            return None
        return E.Undo(at=at, event=n_events)
    return None  # not an action a console offers


def allowed_now(core: Core, n_events: int, at_ms: int, undo_ok: bool,
                own: bool = False) -> list[str]:
    """The actions (event types) whose :func:`probe` ``core`` would accept at ``at_ms``.

    ``core`` is the state at ``at_ms`` (deadlines up to it fired); it is not changed.
    ``undo_ok`` is the caller's answer for ``undo`` (it needs the whole log). ``own``:
    the caller made ``core`` for this answer (a copy, or a replay's own fold) and reads
    nothing of it after but its fields as they stand: the probes run on it, where
    otherwise they share a scratch copy (every canonical probe of a settled state stops
    at ``accept`` or is refused before any change, ``tests/engine/test_probe.py``).
    """
    if at_ms < core.last_at:
        return []
    out: list[str] = []
    if core.final:
        # every handler refuses first thing after the final, but a second Penalty 9
        if core.decided_by is BY_FORFEIT and len(core.forfeited) == 1:
            out.append(str(EventType.FORFEIT))
        return [*out, str(EventType.UNDO)] if undo_ok else out
    # Every handler refuses a probe before it changes anything, and a probing state's
    # handler returns at its first change (``State.accept``), accepted (``probed``): one
    # scratch copy serves every probe. A probe that runs to its end (a handler with no
    # ``accept`` on its way) is accepted too, and may have changed its copy: the next
    # probe gets a new one. The property tests of ``allowed`` hold us to all of that.
    scratch: Core | None = None
    settled = at_ms < core.deadline  # the probes see ``core``'s phase: nothing fires first
    if own and settled:
        scratch = core
        core.probing = True
    try:
        _probe_all(core, n_events, at_ms, undo_ok, settled, scratch, out)
    finally:
        if scratch is core:
            core.probing = False
            core.probed = False
    return out


def _probe_all(core: Core, n_events: int, at_ms: int, undo_ok: bool, settled: bool,
               scratch: Core | None, out: list[str]) -> None:
    same = _same_for(core.team_ids[0])
    for typ in _ACTION_NAMES:
        if typ == "undo":
            if undo_ok:
                out.append(typ)
            continue
        if settled:
            if typ == "whistle" or typ == "timeout":
                # their probes (no spot, no source, no team) meet no check but the final's
                # (``Clock.whistle``, ``Clock.on_timeout``): accepted, no probe run
                out.append(typ)
                continue
            if refused_at_once(core, typ, at_ms):
                continue
        ev = same.get(typ)
        if ev is None:
            if typ in _STATE_FREE:  # built once for this first team, at 0
                ev = probe(core, n_events, typ, 0)
                if ev is not None:
                    same[typ] = ev
            else:
                ev = probe(core, n_events, typ, at_ms)
        if ev is None:
            continue
        if scratch is None:
            scratch = core.copy()
            scratch.probing = True
        try:
            if at_ms >= scratch.deadline:
                scratch.advance(at_ms)
            handle(scratch, CLASS_CODES[type(ev)], ev, at_ms, n_events + 1)
        except Refused:
            continue
        out.append(typ)
        if scratch.probed:
            scratch.probed = False
        else:
            scratch = None


_ACTION_NAMES: tuple[str, ...] = tuple(str(t) for t in ACTIONS)

#: the actions whose canonical probe (:func:`probe`) reads nothing of the state but the
#: set-up's first team: built once for each first team, at 0. A handler reads the instant
#: from its ``at_ms`` argument, never from the event's ``at``
#: (``tests/engine/test_properties_1_1.py`` holds ``allowed`` to the real check of each
#: probe :func:`probe` builds at the instant)
_STATE_FREE: Final = frozenset({"bowl_in", "whistle", "free_hit", "move_to_15", "timeout",
                                "goal", "foul"})
#: those probes, by the first team's key (at most ``_TEAMS_MAX`` teams)
_BY_TEAM: Final[dict[str, dict[str, Event]]] = {}
_TEAMS_MAX: Final = 256


def _same_for(a: str) -> dict[str, Event]:
    """The state-free probes kept for first team ``a`` (filled as ``allowed`` builds them)."""
    same = _BY_TEAM.get(a)
    if same is None:
        if len(_BY_TEAM) >= _TEAMS_MAX:
            _BY_TEAM.clear()
        same = _BY_TEAM[a] = {}
    return same


def refused_at_once(core: Core, typ: str, at_ms: int) -> bool:
    """Whether the handler of ``typ``'s probe refuses it on its first checks, which read
    the match's phase alone: ``allowed`` then skips the probe (a refusal raised and caught
    costs more than the rest of a probe). Each answer is the handler's own first test:

    * ``bowl_in``: no penalty pending, no shootout, no interval still running at ``at_ms``
      (``Clock.on_bowl_in``);
    * ``goal``: the ball is in play and the clock runs (``Penalties.on_goal``);
    * ``free_hit``: a free hit is pending (``Penalties.on_free_hit``);
    * ``clock``: the clock is stopped (``Clock.on_clock``);
    * ``shot``, ``move_to_15``, ``shootout_order``: a shootout, or the interval before it,
      not another interval (``Shootout.check_shootout``, ``Shootout.on_shootout_order``).

    ``core`` is the state the probe would see (no deadline before the instant); the
    property test of ``allowed`` (``tests/engine/test_probe.py``) compares every answer
    with the real check of the probe.
    """
    st = core.status
    if typ == "bowl_in":
        return (core.pending is not None or st is S_SHOOTOUT
                or (st is S_INTERVAL and at_ms < core.interval_end))
    if typ == "goal":
        return st is not S_IN_PLAY or not core.running
    if typ == "free_hit":
        return core.pending is None
    if typ == "clock":
        return st is not S_STOPPED
    if typ == "shot" or typ == "move_to_15" or typ == "shootout_order":
        return st is not S_SHOOTOUT and not (st is S_INTERVAL
                                             and core.interval_kind is IV_SHOOTOUT)
    return False
