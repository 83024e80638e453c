"""Demo content for ``chukker serve``: a match ready to start and a finished one."""

from __future__ import annotations

import random
import secrets
from typing import Any

from chukker.engine import Setup
from chukker.engine.simulate import simulate
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


def seed_finished_match(store: EventStore, now_ms: int, seed: int = 2026) -> str:
    """Store a whole, finished demo match (a legal match from the engine's simulator),
    as if it had been played just before ``now_ms``; returns its id.

    Its secrets are thrown away: it is there to be looked at (spectator view,
    score sheet, record), not to be scored.
    """
    header = {**DEMO_HEADER, "teams": {
        "A": {**DEMO_HEADER["teams"]["A"], "name": "Los Potros"},
        "B": {**DEMO_HEADER["teams"]["B"], "name": "Saint Giles"},
    }}
    setup = Setup.from_dict(header)
    events = simulate(setup, random.Random(seed), events=400)
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
