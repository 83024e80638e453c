"""Helpers: small tournaments built in memory, results given as replay reports."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chukker.tournament.model import Tournament, from_dict
from chukker.tournament.standings import Played


def tournament(
    teams: list[str],
    matches: list[tuple[str, str, str]],
    criteria: list[str] | None = None,
    decided: list[dict[str, Any]] | None = None,
    extra_stages: list[dict[str, Any]] | None = None,
    extra_matches: list[dict[str, Any]] | None = None,
) -> Tournament:
    """A pool ``p`` of ``teams`` (each with three 1-goal players) and its ``matches``
    (id, team A, team B)."""
    players = []
    team_docs = []
    for x in teams:
        ids = [f"{x}{i}" for i in (1, 2, 3)]
        team_docs.append({"id": x, "name": x.upper(), "players": ids, "captain": ids[0]})
        for pid in ids:
            players.append(
                {
                    "id": pid,
                    "name": pid,
                    "registered": [2026],
                    "handicaps": [{"from": dt.date(2026, 1, 1), "value": 1}],
                }
            )
    doc: dict[str, Any] = {
        "format": "chukker-tournament/1",
        "name": "T",
        "players": players,
        "teams": team_docs,
        "stages": [{"id": "p", "kind": "round-robin", "teams": teams}] + (extra_stages or []),
        "matches": [
            {"id": mid, "stage": "p", "teams": [a, b], "start": dt.datetime(2026, 6, 1, 10)}
            for mid, a, b in matches
        ]
        + (extra_matches or []),
    }
    if criteria is not None:
        doc["order_of_finish"] = {"criteria": criteria}
    if decided:
        doc["decided"] = decided
    return from_dict(doc)


def result(a: int, b: int, forfeited: tuple[str, ...] = (), status: str = "final") -> Played:
    """A replay report: score of A and B; the winner follows (or the forfeits)."""
    if forfeited:
        winner = None if len(forfeited) == 2 else ("B" if forfeited[0] == "A" else "A")
        decided = "forfeit"
    else:
        winner = "A" if a > b else "B" if b > a else None
        decided = "regulation"
    if status != "final":
        winner, decided = None, None
    return Played(
        ("A", "B"),
        {
            "status": status,
            "score": {"A": a, "B": b},
            "winner": winner,
            "decided_by": decided,
            "forfeited": list(forfeited),
        },
    )


def order(s: Any, stage: str = "p") -> list[tuple[int, str, str | None]]:
    return [(r.place, r.team, r.decided_by) for r in s.stage(stage).table]
