"""The grooms' plan (record 1.3, issue 30): which horse each player rides next (internal).

``teams.X.plan`` maps a player's number (a JSON key, ``"1"``) to a list of the team's
mount ids, in the order the groom brings them. A mount may appear for two players (a
horse may play twice, in different periods). An id not on the team's ``mounts`` is
refused at the header: ``plan_mount_other_team`` (Rule 2) when it is on the other
team's list, ``plan_mount_not_listed`` otherwise; a key that is no player or alternate
of the team is ``plan_player_unknown``.

The report gives each player of a team with a string ``next_mount``:
``{"mount": id, "from": "split" | "period N"}`` or ``None``, computed by :func:`next_mount`
from the plan and what the fold knows (who rides what, which mounts left the game).

>>> read_plan("teams.A.plan", {"1": ["bay", "grey"], "3": []})
((1, ('bay', 'grey')), (3, ()))
>>> next_mount(("bay", "grey", "roan"), "bay", {"grey"}.__contains__, {"bay": 1}, 1)
'roan'
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chukker.engine.errors import SetupError

#: a player's number as a plan's key: "1" to "99"
PLAN_KEY = re.compile(r"^[1-9][0-9]?$")
#: the mount ids in one player's plan, at most (a horse may be listed twice)
PLAN_MAX = 64
_SHAPE = "a plan maps player numbers to lists of mount ids"
_ID = "a mount's id is 1-32 characters of a-z, 0-9 and -"
_MOUNT_ID = re.compile(r"^[a-z0-9-]{1,32}$")

#: a team's plan as the set-up keeps it: (player number, (mount id, ...)), by number
Plan = tuple[tuple[int, tuple[str, ...]], ...]


def read_plan(path: str, doc: Any) -> Plan:
    """``teams.X.plan`` read into a :data:`Plan`; :class:`SetupError` on its shape."""
    if not isinstance(doc, Mapping) or len(doc) > 99:
        raise SetupError(path, _SHAPE, "setup_plan_shape")
    out: list[tuple[int, tuple[str, ...]]] = []
    for key, ids in doc.items():
        kpath = f"{path}.{key}"
        if type(key) is not str or not PLAN_KEY.match(key):
            raise SetupError(kpath, _SHAPE, "setup_plan_shape")
        if not isinstance(ids, list) or len(ids) > PLAN_MAX:
            raise SetupError(kpath, _SHAPE, "setup_plan_shape")
        out.append((int(key), tuple(ids)))  # each id: check_plan
    out.sort()
    return tuple(out)


def closest(name: str, known: Sequence[tuple[str, str]]) -> str | None:
    """The horse of ``known`` (id, name) whose id or name is closest to ``name`` (case
    aside), as it is called (its name, else its id); ``None`` if none is close.

    >>> closest("Comit", [("m1", "Comet"), ("m2", "Dancer")])
    'Comet'
    >>> closest("zzz", [("m1", "Comet")]) is None
    True
    """
    folded: dict[str, str] = {}
    for mid, mname in known:
        for word in (mid, mname):
            if word:
                folded.setdefault(word.casefold(), mname or mid)
    near = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.6)
    return folded[near[0]] if near else None


def check_plan(
    team: str, plan: Plan, numbers: Sequence[int], mounts: Sequence[str],
    other: str, other_mounts: Sequence[str], *, team_name: str = "",
    names: Sequence[str] = (),
) -> None:
    """Every key a player (or alternate) of ``team``, every id on ``team``'s string. A
    horse not on the string is named with the team's name and, when one is close, the
    closest horse of the string (``names``: the string's names, in ``mounts``' order)."""
    mine = set(mounts)
    for no, ids in plan:
        path = f"teams.{team}.plan.{no}"
        if no not in numbers:
            raise SetupError(path, f"{team} has no player {no}", "plan_player_unknown",
                             team=team, player=no)
        for i, m in enumerate(ids):
            if type(m) is str and m in mine:
                continue
            if type(m) is not str or not _MOUNT_ID.match(m):
                raise SetupError(f"{path}[{i}]", _ID, "mount_id")
            if m in other_mounts:
                raise SetupError(
                    f"{path}[{i}]",
                    f"Rule 2: no mount may be played by more than one team; {m} is on "
                    f"{other}'s list, not {team}'s", "plan_mount_other_team",
                    mount=m, team=team, other=other)
            called = team_name or team
            near = closest(m, list(zip(mounts, [*names, *[""] * len(mounts)], strict=False)))
            if near is not None:
                raise SetupError(f"{path}[{i}]", f"'{m}' is not in {called}'s string: did you "
                                 f"mean {near}?", "plan_mount_not_listed_near", mount=m,
                                 team=called, near=near)
            raise SetupError(f"{path}[{i}]", f"mount {m} is not on {called}'s list of mounts",
                             "plan_mount_not_listed", mount=m, team=called)


def plan_dict(plan: Plan) -> dict[str, list[str]]:
    """A :data:`Plan` as the record writes it."""
    return {str(no): list(ids) for no, ids in plan}


def next_mount(
    plan: tuple[str, ...],
    now: str | None,
    gone: Callable[[str], bool],
    riders: Mapping[str, int],
    player: int,
) -> str | None:
    """The first mount of ``plan`` after ``now`` (from the start when ``now`` is ``None``
    or not in the plan; after its first place when listed twice) that is in the game
    (``gone`` is false) and ridden by no teammate of ``player`` (``riders``: mount ->
    the player in the game on it)."""
    start = 0
    if now is not None:
        for i, m in enumerate(plan):
            if m == now:
                start = i + 1
                break
    for j in range(start, len(plan)):
        m = plan[j]
        if m != now and not gone(m):
            r = riders.get(m)
            if r is None or r == player:
                return m
    return None
