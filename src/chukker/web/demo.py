"""Demo content for ``chukker serve``: a match ready to start and a finished one."""

from __future__ import annotations

import random
import secrets
from typing import Any

from chukker.engine import Match, Setup
from chukker.store import EventStore, StoredEvent
from chukker.web.live import hash_token, new_match_id

DEMO_HEADER: dict[str, Any] = {
    "format": "chukker-match/1",
    "rules": "uspa-arena-2026",
    "options": {
        "periods": "regulation",
        "split_periods": False,
        "tiebreak": "extra-periods",
        "shootout_players": "all",
        "handicap": True,
        "warning_horn": True,
        "two_point_line": "center",
        "first_defends": {"A": "west", "B": "east"},
    },
    "teams": {
        "A": {"name": "Blue", "captain": 2, "players": [
            {"no": 1, "name": "Ann", "handicap": 2},
            {"no": 2, "name": "Bea", "handicap": 3},
            {"no": 3, "name": "Cat", "handicap": 1}]},
        "B": {"name": "White", "captain": 1, "players": [
            {"no": 1, "name": "Dan", "handicap": 4},
            {"no": 2, "name": "Eve", "handicap": 2},
            {"no": 3, "name": "Fay", "handicap": 2}]},
    },
}


#: the finished demo match's details for the score sheet
DEMO_INFO = {"event": "Arena Challenge Cup", "venue": "Chukker Arena Club", "date": "2026-11-28",
             "arena": "Arena 1", "umpire_1": "R. Alvarez", "umpire_2": "J. Whitfield",
             "referee": "M. Costa", "timekeeper": "L. Brennan", "scorer": "P. Novak"}


def demo_events(setup: Setup, rng: random.Random) -> list[dict[str, Any]]:
    """A whole match as a match day sees it: plays of 15 to 70 s of running time, each
    ending in a goal, a foul and its free hit, or a whistle and a bowl-in; the engine
    checks every event (it decides periods, intervals and the end)."""
    m = Match(setup)
    events: list[dict[str, Any]] = []
    teams = list(setup.team_ids)
    t_ms = 0

    def add(ev: dict[str, Any]) -> None:
        ev = {"at": t_ms / 1000, **ev}
        m.apply(ev)
        events.append(ev)

    add({"type": "bowl_in"})
    for _ in range(400):
        rep = m.report(t_ms)
        status = rep["status"]
        if status == "final":
            break
        if status == "interval":
            t_ms = round(rep["interval"]["end"] * 1000) + rng.randrange(15_000, 60_000)
            add({"type": (rep.get("restart") or {}).get("kind", "bowl_in")})
        elif status == "stopped":
            t_ms += rng.randrange(8_000, 40_000)
            add({"type": (rep.get("restart") or {}).get("kind", "bowl_in")})
        elif status == "in_play":
            left = int(rep["clock"]["remaining_ms"])
            play = rng.randrange(15_000, 70_000)
            if play >= left:  # the period runs out: its horn, then the interval
                t_ms += left + 1000
                continue
            t_ms += play
            team = rng.choice(teams)
            roll = rng.random()
            if roll < 0.42:
                add({"type": "goal", "team": team, "player": rng.choice((1, 2, 2, 3))})
            elif roll < 0.62:
                pen = rng.choice(("2", "3", "3", "4", "5a", "5b", "1"))
                foul: dict[str, Any] = {"type": "foul", "team": team, "penalty": pen,
                                        "player": rng.choice((1, 2, 3)),
                                        "clause": rng.choice(("13b", "13f", "13k", "12"))}
                if rng.random() < 0.15:
                    foul["card"] = "yellow"
                add(foul)
            else:
                add({"type": "whistle"})
        else:  # a shootout would need its order; the demo's rosters rarely tie
            break
    return events


def seed_finished_match(store: EventStore, now_ms: int, seed: int = 2026) -> str:
    """Store a whole, finished demo match (scripted plays checked by the engine), as if
    it had been played just before ``now_ms``; returns its id.

    Its secrets are thrown away: it is there to be looked at (spectator view,
    score sheet, record), not to be scored.
    """
    header = {**DEMO_HEADER, "teams": {
        "A": {**DEMO_HEADER["teams"]["A"], "name": "Los Potros"},
        "B": {**DEMO_HEADER["teams"]["B"], "name": "Saint Giles"},
    }, "match_info": DEMO_INFO}
    setup = Setup.from_dict(header)
    events = demo_events(setup, random.Random(seed))
    last_ms = round(events[-1]["at"] * 1000) if events else 0
    start_ms = now_ms - last_ms - 60_000
    match_id = new_match_id()
    store.create_match(match_id, header, start_ms, hash_token(secrets.token_urlsafe(32)),
                       hash_token(secrets.token_urlsafe(32)))
    for seq, ev in enumerate(events, 1):
        at_ms = round(ev["at"] * 1000)
        store.append(match_id, StoredEvent(seq, f"demo-{seq}", ev, start_ms + at_ms, "timekeeper"),
                     start_ms)
    return match_id
