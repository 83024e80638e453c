"""A small tournament for the web tests: four teams, one pool, a final."""

from __future__ import annotations

import uuid
from typing import Any

TEAMS = ["reds", "blues", "greens", "golds"]


def four_team_toml() -> str:
    lines = [
        'format = "chukker-tournament/1"',
        'name = "Four Cup"',
        'venue = "Pine Hill"',
        "team_handicap = { min = 0, max = 9 }",
        "[match_options]",
        'tiebreak = "shootout"',
        "handicap = true",
    ]
    for i, team in enumerate(TEAMS):
        for k in (1, 2, 3):
            lines += [
                "[[players]]",
                f'id = "{team}{k}"',
                f'name = "{team.title()} {k}"',
                "registered = [2026]",
                f"handicaps = [{{ from = 2026-01-01, value = {(i + k) % 3} }}]",
            ]
    for team in TEAMS:
        lines += [
            "[[teams]]",
            f'id = "{team}"',
            f'name = "{team.title()}"',
            f'players = ["{team}1", "{team}2", "{team}3"]',
            f'captain = "{team}1"',
        ]
    lines += [
        "[[stages]]",
        'id = "pool"',
        'kind = "round-robin"',
        f"teams = {TEAMS!r}".replace("'", '"'),
        "[[stages]]",
        'id = "final"',
        'kind = "single-elimination"',
    ]
    pairs = [
        ("reds", "blues"),
        ("greens", "golds"),
        ("reds", "greens"),
        ("blues", "golds"),
        ("reds", "golds"),
        ("blues", "greens"),
    ]
    for n, (a, b) in enumerate(pairs, 1):
        arena = "Arena 1" if n % 2 else "Arena 2"
        hour = 9 + (n - 1) // 2
        lines += [
            "[[matches]]",
            f'id = "m{n}"',
            'stage = "pool"',
            f'arena = "{arena}"',
            f"start = 2026-12-05T{hour:02d}:00:00",
            f'teams = ["{a}", "{b}"]',
        ]
    lines += [
        "[[matches]]",
        'id = "f1"',
        'stage = "final"',
        'arena = "Arena 1"',
        "start = 2026-12-05T15:00:00",
        'teams = [{ from = "pool", place = 1 }, { from = "pool", place = 2 }]',
    ]
    return "\n".join(lines) + "\n"


#: pool results: match -> events after the bowl-in (a goal, then the forfeit deciding it)
RESULTS: dict[str, list[dict[str, Any]]] = {
    "m1": [{"type": "goal", "team": "A"}, {"type": "forfeit", "team": "B"}],  # reds
    "m2": [{"type": "forfeit", "team": "B"}],  # greens
    "m3": [{"type": "forfeit", "team": "B"}],  # reds
    "m4": [{"type": "forfeit", "team": "B"}],  # blues
    "m5": [{"type": "forfeit", "team": "B"}],  # reds
    "m6": [{"type": "forfeit", "team": "B"}],  # blues
}
# wins: reds 3, blues 2, greens 1, golds 0: the final is reds v blues.


def post(client: Any, base: str, live_id: str, token: str, event: dict[str, Any]) -> Any:
    return client.post(
        f"{base}/api/matches/{live_id}/events",
        json={"command_id": uuid.uuid4().hex, "event": event},
        headers={"authorization": f"Bearer {token}"},
    )


def six_team_toml() -> str:
    """Two pools of three and a bracket of six (``ko=pool-a,pool-b:3``): byes to A1, B1."""
    import datetime as dt

    from chukker.tournament.model import dumps, from_dict
    from chukker.tournament.schedule import bracket, plan_round_robins

    names = ["reds", "blues", "greens", "golds", "whites", "blacks"]
    players, teams = [], []
    for i, team in enumerate(names):
        ids = [f"{team}{k}" for k in (1, 2, 3)]
        teams.append({"id": team, "name": team.title(), "players": ids, "captain": ids[0]})
        for k, pid in enumerate(ids, 1):
            hc = [{"from": dt.date(2026, 1, 1), "value": (i + k) % 3}]
            players.append(
                {"id": pid, "name": f"{team.title()} {k}", "registered": [2026], "handicaps": hc}
            )
    doc = {
        "format": "chukker-tournament/1",
        "name": "Six Cup",
        "venue": "Pine Hill",
        "match_options": {"tiebreak": "shootout"},
        "players": players,
        "teams": teams,
        "stages": [
            {"id": "pool-a", "kind": "round-robin", "teams": names[:3]},
            {"id": "pool-b", "kind": "round-robin", "teams": names[3:]},
        ],
    }
    t = from_dict(doc)
    for m in plan_round_robins(t, dt.datetime(2026, 12, 5, 9), ["Arena 1", "Arena 2"]):
        t.matches[m.id] = m
    stage, ms = bracket("ko", ["pool-a", "pool-b"], 3, dt.datetime(2026, 12, 6, 9),
                        ["Arena 1", "Arena 2"], 65)  # fmt: skip
    t.stages[stage.id] = stage
    for m in ms:
        t.matches[m.id] = m
    return dumps(t)
