"""Candidate fouls: what a detector reports, and the final merge shared by both paths.

>>> c = Candidate(Clause.R13B, "white", 2, 2.4000000000000004, 2.9, {"speed_yd_s": 9.87654})
>>> j = c.to_json()
>>> j["clause"], j["start"], j["evidence"]
('13b', 2.4, {'speed_yd_s': 9.877})
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from chukker.plays.params import Params

Evidence = float | int | str | bool | None


class Clause(StrEnum):
    """Clauses the detectors can point at."""

    R12 = "12"
    R13A = "13a"
    R13B = "13b"
    R13D = "13d"
    R13F = "13f"
    R13G = "13g"
    R13H = "13h"
    R13I = "13i"
    R13J = "13j"
    R13K = "13k"


CLAUSE_TITLES: dict[Clause, str] = {
    Clause.R12: "Entering or crossing the right of way at an unsafe distance",
    Clause.R13A: "Ride-off at unequal speed or at a steep angle",
    Clause.R13B: "Zigzagging in front of a galloping player",
    Clause.R13D: "Riding an opponent into another player's right of way",
    Clause.R13F: "Two players of one team riding off one opponent",
    Clause.R13G: "Riding at an opponent to intimidate",
    Clause.R13H: "Riding into the stroke",
    Clause.R13I: "Driving the mount's head into an opponent",
    Clause.R13J: "Riding an opponent into the wall",
    Clause.R13K: "Delay of game",
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A moment worth a look: the clause, who, when, and the evidence measured."""

    clause: Clause
    team: str
    player: int
    start: float
    end: float
    evidence: dict[str, Evidence]

    @property
    def who(self) -> str:
        return f"{self.team}:{self.player}"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types, floats rounded to 3 decimals."""
        return {
            "clause": str(self.clause),
            "team": self.team,
            "player": self.player,
            "start": round(self.start, 3),
            "end": round(self.end, 3),
            "evidence": {k: _round(v) for k, v in self.evidence.items()},
        }


def _round(v: Evidence) -> Evidence:
    if isinstance(v, float):
        return round(v, 3) if math.isfinite(v) else None
    return v


def angle_deg(ax: float, ay: float, bx: float, by: float) -> float:
    """Angle between two unit vectors in degrees (clamped)."""
    d = ax * bx + ay * by
    return math.degrees(math.acos(max(-1.0, min(1.0, d))))


_OTHER = ("holder", "against", "opponent", "victim", "striker", "marker", "pushed", "teammate")


def _sort_key(c: Candidate) -> tuple[float, float, str, str, int, tuple[str, ...]]:
    others = tuple(str(c.evidence.get(k, "")) for k in _OTHER)
    return (c.start, c.end, str(c.clause), c.team, c.player, others)


def finalize(cands: list[Candidate], params: Params) -> list[Candidate]:
    """Sort; merge repeated right-of-way entries; a 13b zigzag supersedes its 12 crossings."""
    gap = params.merge_gap_s.value
    out: list[Candidate] = []
    open_: dict[tuple[str, str, int, Evidence], int] = {}
    for c in sorted(cands, key=_sort_key):
        if c.clause in (Clause.R12, Clause.R13D, Clause.R13G, Clause.R13I):
            other = c.evidence.get("holder", c.evidence.get("opponent"))
            key = (str(c.clause), c.team, c.player, other)
            i = open_.get(key)
            if i is not None and c.start - out[i].end <= gap:
                prev = out[i]
                ev = dict(prev.evidence)
                if "entries" in ev:
                    ev["entries"] = int(ev.get("entries") or 1) + 1
                out[i] = replace(prev, end=max(prev.end, c.end), evidence=ev)
                continue
            open_[key] = len(out)
        out.append(c)
    zig: dict[tuple[str, int, Evidence], list[Candidate]] = {}
    for z in out:
        if z.clause is Clause.R13B:
            zig.setdefault((z.team, z.player, z.evidence.get("against")), []).append(z)

    def superseded(c: Candidate) -> bool:
        if c.clause is not Clause.R12:
            return False
        zs = zig.get((c.team, c.player, c.evidence.get("holder")), [])
        return any(c.start <= z.end + gap and z.start <= c.end + gap for z in zs)

    return sorted([c for c in out if not superseded(c)], key=_sort_key)
