"""The shape of an elimination stage: rounds, byes and where each match is drawn.

A bye is not written in the tournament file (``docs/tournament.md``): a seed with a
bye is written straight into the match of the round it first plays. This module finds
them again from the shape of the stage: the **round** of a match is counted back from
the stage's final (the final is the last round, the matches whose winners it takes the
round before, and so on), and an entrant written into a match of a later round than
the first had a bye in each round before.

>>> from chukker.tournament.model import from_dict
>>> from chukker.tournament.schedule import bracket
>>> stage, ms = bracket("ko", ["a"], 3)
>>> t = from_dict({"stages": [{"id": "a", "kind": "round-robin"}, stage.to_dict()],
...                "matches": [m.to_dict() for m in ms]})
>>> rounds(t, "ko")
{'ko-r1-1': 1, 'ko-final': 2}
>>> [(b.match, b.side, b.ref.describe()) for b in byes(t, "ko")]
[('ko-final', 0, 'a #1')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chukker.tournament.model import MatchSpec, TeamRef, Tournament


@dataclass(frozen=True, slots=True)
class Bye:
    """An entrant that enters ``match`` (on ``side`` 0 or 1) without playing the round(s)
    before it (``rounds`` of them)."""

    match: str
    side: int
    ref: TeamRef
    rounds: int = 1


def stage_matches(t: Tournament, stage_id: str) -> list[MatchSpec]:
    return [m for m in t.matches.values() if m.stage == stage_id]


def _parents(ms: Sequence[MatchSpec]) -> dict[str, str]:
    """Each match -> the match of the same stage that takes its winner."""
    own = {m.id for m in ms}
    out: dict[str, str] = {}
    for m in ms:
        for r in m.teams:
            if r.winner_of in own and r.winner_of not in out:
                out[r.winner_of] = m.id
    return out


def levels(ms: Sequence[MatchSpec]) -> dict[str, int]:
    """How many matches each match is before the one its winners end in (the final: 0)."""
    parent = _parents(ms)
    out: dict[str, int] = {}
    for m in ms:
        seen = {m.id}
        cur, n = m.id, 0
        while cur in parent and parent[cur] not in seen:
            cur = parent[cur]
            seen.add(cur)
            n += 1
        out[m.id] = n
    return out


def rounds(t: Tournament, stage_id: str) -> dict[str, int]:
    """Round of each match of the stage, 1 for the first; the final is the last."""
    lv = levels(stage_matches(t, stage_id))
    depth = max(lv.values(), default=0)
    return {mid: depth - n + 1 for mid, n in lv.items()}


def is_entry(ref: TeamRef, own: set[str]) -> bool:
    """A side that enters the stage here (not a winner or loser of one of its matches)."""
    return ref.winner_of not in own and ref.loser_of not in own


def byes(t: Tournament, stage_id: str) -> list[Bye]:
    """The entrants of the stage that had a bye, in the order of its matches."""
    ms = stage_matches(t, stage_id)
    own = {m.id for m in ms}
    rnd = rounds(t, stage_id)
    out: list[Bye] = []
    for m in ms:
        if rnd[m.id] <= 1:
            continue
        for k, ref in enumerate(m.teams):
            if is_entry(ref, own):
                out.append(Bye(m.id, k, ref, rnd[m.id] - 1))
    return out


@dataclass(frozen=True, slots=True)
class Placed:
    """Where to draw a box: ``column`` (0 = the first round) and ``row`` (may be a half)."""

    match: str
    column: int
    row: float
    bye_of: int | None = None  # a bye's box: the side of ``match`` it enters


def layout(t: Tournament, stage_id: str) -> tuple[list[Placed], int, int]:
    """The boxes of a stage's drawing (matches and byes), its columns and rows: each
    match level with the middle of the two it follows, the first round and the byes one
    row each, in bracket order; a match of two losers (third place) below the final."""
    ms = stage_matches(t, stage_id)
    if not ms:
        return [], 0, 0
    own = {m.id for m in ms}
    by_id = {m.id: m for m in ms}
    rnd = rounds(t, stage_id)
    children: dict[str, list[str | int]] = {}
    for m in ms:
        kids: list[str | int] = []
        for k, ref in enumerate(m.teams):
            if ref.winner_of in own:
                kids.append(ref.winner_of)
            elif is_entry(ref, own) and rnd[m.id] > 1:
                kids.append(k)  # a bye
        children[m.id] = kids
    parent = _parents(ms)
    # the final(s) first, then matches of losers (third place), in file order
    roots = [m.id for m in ms if m.id not in parent]
    roots.sort(key=lambda mid: 0 if any(isinstance(c, str) for c in children[mid]) else 1)
    placed: list[Placed] = []
    next_row = 0
    done: set[str] = set()

    def place(mid: str) -> float:
        nonlocal next_row
        done.add(mid)
        ys: list[float] = []
        for c in children[mid]:
            if isinstance(c, str):
                if c not in done:
                    ys.append(place(c))
            else:
                placed.append(Placed(mid, rnd[mid] - 2, float(next_row), bye_of=c))
                ys.append(float(next_row))
                next_row += 1
        if ys:
            y = sum(ys) / len(ys)
        else:
            y = float(next_row)
            next_row += 1
        placed.append(Placed(mid, rnd[mid] - 1, y))
        return y

    for r in roots:
        place(r)
    for m in ms:  # anything a cycle left out
        if m.id not in done:
            place(m.id)
    assert all(p.match in by_id for p in placed)
    return placed, max(rnd.values()), next_row
