"""What an operator may send now: the canonical probe event of each action and the
actions the state would accept (the report's ``allowed``) (internal)."""

from __future__ import annotations

from typing import Any

from chukker.engine.core import CLASS_CODES, Core, handle
from chukker.engine.events import BY_TAG, Event
from chukker.engine.state import (
    BY_FORFEIT,
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
    fields = probe_fields(core, n_events, type_, at_ms)
    if fields is None:
        return None
    return BY_TAG[str(type_)](**fields)


def probe_fields(core: Core, n_events: int, type_: str, at_ms: int) -> dict[str, Any] | None:
    """:func:`probe`'s event as its class's keyword arguments."""
    at = at_ms / 1000
    a = core.team_ids[0]
    type_ = str(type_)
    ev: dict[str, Any] = {"at": at}
    if type_ in ("bowl_in", "whistle", "free_hit", "move_to_15"):
        return ev
    if type_ == "goal":
        ev["team"] = a
    elif type_ == "foul":
        ev.update(team=a, penalty="3")
    elif type_ == "timeout":
        ev["reason"] = "equipment"
    elif type_ == "forfeit":
        ev["team"] = next((t for t in core.team_ids if t not in core.forfeited), a)
    elif type_ == "shootout_order":
        order = {t: sorted(core.playing(t)) for t in core.team_ids}
        if core.opts.shootout_players is SP_ONE:
            order = {t: v[:1] for t, v in order.items()}
        ev.update(first=a, order=order)
    elif type_ == "shot":
        if not core.so_seq or core.so_pos >= len(core.so_seq):
            return None
        team, player = core.so_seq[core.so_pos]
        ev.update(team=team, player=player, result="miss")
    elif type_ == "substitute":
        for t in core.team_ids:
            alts = [
                p for p in sorted(core.sheet[t]) if p not in core.field[t] and p not in core.out[t]
            ]
            outs = [
                p
                for p in core.field[t]
                if core.out[t].get(p, {}).get("status") in (None, "retired", "equipment")
            ]
            if alts and outs:
                ev.update(team=t, out=outs[0], in_=alts[0])
                return ev
        return None
    elif type_ == "designate":
        for t in core.team_ids:
            d = core.designation[t]
            if d is not None:
                ev.update(team=t, player=d["candidates"][0])
                return ev
        return None
    elif type_ == "return":
        for t in core.team_ids:
            for p, o in sorted(core.out[t].items()):
                if o["status"] == "equipment":
                    ev.update(team=t, player=p)
                    return ev
            for p, m in sorted(core.mounts_out[t].items()):
                if m == "equipment":
                    ev.update(team=t, player=p)
                    return ev
        return None
    elif type_ == "clock":
        ev.update(remaining=max(core.remaining, 0) / 1000, reason="correction")
    elif type_ == "mount":
        for t in core.team_ids:
            for p in core.playing(t) if core.strings[t] else ():
                for m in core.strings[t]:
                    if (m not in core.mounts_gone[t] and core.riding[t].get(p) != m
                            and core.rider(t, m) is None):
                        ev.update(team=t, player=p, mount=m, umpire_consent=True)
                        return ev
        return None
    elif type_ == "mount_out":
        for t in core.team_ids:
            for m in core.strings[t]:
                if m not in core.mounts_gone[t]:
                    ev.update(team=t, mount=m, reason="other")
                    return ev
        return None
    elif type_ == "undo":
        if n_events == 0:
            return None
        ev["event"] = n_events
    return ev


def allowed_now(core: Core, n_events: int, at_ms: int, undo_ok: bool) -> list[str]:
    """The actions (event types) whose :func:`probe` ``core`` would accept at ``at_ms``.

    ``core`` is the state at ``at_ms`` (deadlines up to it fired); it is not changed.
    ``undo_ok`` is the caller's answer for ``undo`` (it needs the whole log).
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
    for typ in _ACTION_NAMES:
        if typ == "undo":
            if undo_ok:
                out.append(typ)
            continue
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
    return out


_ACTION_NAMES: tuple[str, ...] = tuple(str(t) for t in ACTIONS)
