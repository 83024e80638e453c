"""The match state machine: a fold over operator events (internal).

:class:`Core` holds the mutable state of one fold; the public, immutable
surface is :mod:`chukker.engine.match`. Time is integer milliseconds since the
record started; nothing here reads a clock.

Core is built in layers, one per concern, each on the ones below it:

- :mod:`.state`: the state, its copy, the checks every handler shares;
- :mod:`.roster`: who may play (Rules 3, 16; Penalties 7, 8, 10);
- :mod:`.clock`: clock and periods, deadlines, stoppages, the end of the match;
- :mod:`.shootout`: the Rule 5 shootout;
- :mod:`.penalties`: goals, fouls, penalties, free hits, forfeits;
- :mod:`.report`: the report and its restarts;
- :mod:`.mounts`: the pony lines (record 1.2: Rules 2, 5, 16; Penalty 8).

:data:`HANDLERS` maps each event type to its handler; :mod:`.fold` replays
events through them (one pure function over events) and :mod:`.allowed`
answers what an operator may send now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from chukker.engine import events as E
from chukker.engine.events import BY_TAG, Event
from chukker.engine.mounts import Mounts


class Core(Mounts):
    """The derived state of a match after some events: every layer, one class."""


HANDLERS: dict[str, Callable[[Core, Any, int, int], None]] = {
    "bowl_in": Core.on_bowl_in,
    "whistle": Core.on_whistle,
    "goal": Core.on_goal,
    "foul": Core.on_foul,
    "free_hit": Core.on_free_hit,
    "timeout": Core.on_timeout,
    "forfeit": Core.on_forfeit,
    "shootout_order": Core.on_shootout_order,
    "shot": Core.on_shot,
    "move_to_15": Core.on_move_to_15,
    "substitute": Core.on_substitute,
    "designate": Core.on_designate,
    "return": Core.on_return,
    "clock": Core.on_clock,
    "mount": Core.on_mount,
    "mount_out": Core.on_mount_out,
}

#: each handled type's number for :func:`handle` (the order of :data:`HANDLERS`)
CODES: Final[dict[str, int]] = {typ: k for k, typ in enumerate(HANDLERS)}
#: the same numbers by the event's class: the fold matches on the class
CLASS_CODES: Final[dict[type[Event], int]] = {BY_TAG[typ]: k for typ, k in CODES.items()}


def handle(core: Core, code: int, ev: Event, t: int, i: int) -> None:
    """``HANDLERS[typ](core, ev, t, i)`` for ``code == CODES[typ]`` (``ev`` of that
    type's class): the same handler, called as a method (in the compiled engine a native
    call, where the table's entry is a Python call that boxes ``t`` and ``i``). The
    commonest types are tried first."""
    if code == 0:
        core.on_bowl_in(cast(E.BowlIn, ev), t, i)
    elif code == 1:
        core.on_whistle(cast(E.Whistle, ev), t, i)
    elif code == 3:
        core.on_foul(cast(E.Foul, ev), t, i)
    elif code == 4:
        core.on_free_hit(cast(E.FreeHit, ev), t, i)
    elif code == 2:
        core.on_goal(cast(E.Goal, ev), t, i)
    elif code == 5:
        core.on_timeout(cast(E.Timeout, ev), t, i)
    elif code == 13:
        core.on_clock(cast(E.Clock, ev), t, i)
    elif code == 6:
        core.on_forfeit(cast(E.Forfeit, ev), t, i)
    elif code == 7:
        core.on_shootout_order(cast(E.ShootoutOrder, ev), t, i)
    elif code == 8:
        core.on_shot(cast(E.Shot, ev), t, i)
    elif code == 9:
        core.on_move_to_15(cast(E.MoveTo15, ev), t, i)
    elif code == 10:
        core.on_substitute(cast(E.Substitute, ev), t, i)
    elif code == 11:
        core.on_designate(cast(E.Designate, ev), t, i)
    elif code == 12:
        core.on_return(cast(E.Return, ev), t, i)
    elif code == 14:
        core.on_mount(cast(E.Mount, ev), t, i)
    elif code == 15:
        core.on_mount_out(cast(E.MountOut, ev), t, i)
    else:
        raise KeyError(code)
