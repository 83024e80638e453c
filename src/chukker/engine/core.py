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
- :mod:`.report`: the report and its restarts.

:data:`HANDLERS` maps each event type to its handler; :mod:`.fold` replays
events through them (one pure function over events) and :mod:`.allowed`
answers what an operator may send now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chukker.engine.report import Report


class Core(Report):
    """The derived state of a match after some events: every layer, one class."""


HANDLERS: dict[str, Callable[[Core, dict[str, Any], int, int], None]] = {
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
}
