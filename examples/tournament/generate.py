"""Regenerate the worked example: ``python examples/tournament/generate.py``.

Eight teams in two pools of four (round robins), semi-finals seeded from the
pools (A1 v B2, B1 v A2) and a final. The records are played without
stoppages (``scripted_events``) to reach the scores chosen below, handicap
goals included. Pool A ends with a lot (recorded in ``decided``); pool B has
a match both teams forfeited and a three-way tie that head-to-head splits.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from chukker.record import dumps as record_dumps
from chukker.record import replay
from chukker.tournament import dumps, from_dict
from chukker.tournament.records import header, scripted_events

HERE = Path(__file__).parent

TEAMS = {
    "potros": ("Los Potros", ["ann", "bea", "cat"], (2, 2, 1)),
    "giles": ("Giles Farm", ["gus", "hal", "ivy"], (3, 2, 1)),
    "halcones": ("Halcones", ["jon", "kim", "lia"], (1, 1, 2)),
    "toros": ("Toros", ["max", "ned", "ola"], (2, 1, 0)),
    "condors": ("Condors", ["pia", "quin", "rae"], (3, 3, 0)),
    "lobos": ("Lobos", ["sam", "tia", "uma"], (1, 2, 2)),
    "pumas": ("Pumas", ["val", "wes", "xia"], (0, 1, 1)),
    "zorros": ("Zorros", ["yan", "zoe", "abe"], (2, 0, 2)),
}
DAY1 = dt.date(2026, 12, 5)
DAY2 = dt.date(2026, 12, 6)

# match id, stage, arena, start, teams, final score (None: both forfeit)
POOLS = [
    ("a1", "pool-a", "Arena 1", "10:00", ("potros", "giles"), (7, 14)),
    ("b1", "pool-b", "Arena 2", "10:00", ("condors", "lobos"), (10, 7)),
    ("a2", "pool-a", "Arena 1", "11:10", ("halcones", "toros"), (8, 6)),
    ("b2", "pool-b", "Arena 2", "11:10", ("pumas", "zorros"), (5, 8)),
    ("a3", "pool-a", "Arena 1", "12:20", ("potros", "halcones"), (9, 5)),
    ("b3", "pool-b", "Arena 2", "12:20", ("condors", "zorros"), (9, 6)),
    ("a4", "pool-a", "Arena 1", "13:30", ("giles", "toros"), (10, 4)),
    ("b4", "pool-b", "Arena 2", "13:30", ("lobos", "pumas"), None),
    ("a5", "pool-a", "Arena 1", "14:40", ("potros", "toros"), (6, 8)),
    ("b5", "pool-b", "Arena 2", "14:40", ("condors", "pumas"), (6, 8)),
    ("a6", "pool-a", "Arena 1", "15:50", ("giles", "halcones"), (9, 5)),
    ("b6", "pool-b", "Arena 2", "15:50", ("lobos", "zorros"), (9, 7)),
]
FINALS = [
    (
        "s1",
        "semis",
        "Arena 1",
        "10:00",
        ({"from": "pool-a", "place": 1}, {"from": "pool-b", "place": 2}),
        (11, 8),
    ),
    (
        "s2",
        "semis",
        "Arena 2",
        "10:00",
        ({"from": "pool-b", "place": 1}, {"from": "pool-a", "place": 2}),
        (9, 6),
    ),
    ("f1", "final", "Arena 1", "15:00", ({"winner": "s1"}, {"winner": "s2"}), (10, 8)),
]


def doc() -> dict:
    players = []
    for team, (_name, ids, hcps) in TEAMS.items():
        for pid, h in zip(ids, hcps, strict=True):
            players.append(
                {
                    "id": pid,
                    "name": pid.capitalize() + " " + team.capitalize(),
                    "registered": [2026],
                    "handicaps": [{"from": dt.date(2025, 5, 1), "value": h}],
                }
            )
    by_id = {p["id"]: p for p in players}
    # a rise announced in the summer, in force from 1 December (before the event)
    by_id["ann"]["handicaps"].append({"from": dt.date(2026, 12, 1), "value": 3})
    by_id["ann"]["handicaps"][0]["value"] = 1
    # a rise in force on the second day: the semi-final uses it, the pool matches do not
    by_id["gus"]["handicaps"].append({"from": DAY2, "value": 4})
    players.append(
        {
            "id": "dan",
            "name": "Dan Potros",
            "registered": [2026],
            "handicaps": [{"from": dt.date(2025, 5, 1), "value": 0}],
        }
    )
    teams = [
        {"id": tid, "name": name, "players": ids, "captain": ids[1]}
        for tid, (name, ids, _h) in TEAMS.items()
    ]
    teams[0]["alternates"] = ["dan"]
    matches = []
    for mid, stage, arena, hhmm, tms, _score in POOLS + FINALS:
        day = DAY1 if stage.startswith("pool") else DAY2
        h, m = map(int, hhmm.split(":"))
        matches.append(
            {
                "id": mid,
                "stage": stage,
                "arena": arena,
                "start": dt.datetime.combine(day, dt.time(h, m)),
                "teams": list(tms),
                "record": f"matches/{mid}.json",
            }
        )
    return {
        "format": "chukker-tournament/1",
        "name": "Fall Arena Classic",
        "rules": "uspa-arena-2026",
        "venue": "Pine Hill Arena",
        "team_handicap": {"min": 0, "max": 8},
        "match_options": {"tiebreak": "shootout", "handicap": True},
        "order_of_finish": {"criteria": ["wins", "head_to_head", "net_goals", "goals_for", "lot"]},
        "players": players,
        "teams": teams,
        "stages": [
            {
                "id": "pool-a",
                "kind": "round-robin",
                "teams": ["potros", "giles", "halcones", "toros"],
            },
            {
                "id": "pool-b",
                "kind": "round-robin",
                "teams": ["condors", "lobos", "pumas", "zorros"],
            },
            {"id": "semis", "kind": "single-elimination"},
            {"id": "final", "kind": "single-elimination"},
        ],
        "matches": matches,
        "decided": [{"stage": "pool-a", "by": "lot", "order": ["halcones", "toros"]}],
    }


def main() -> None:
    from chukker.tournament.standings import standings

    d = doc()
    (HERE / "matches").mkdir(exist_ok=True)
    scores = {mid: score for mid, *_rest, score in POOLS + FINALS}
    for mid, *_ in POOLS + FINALS:
        (HERE / "matches" / f"{mid}.json").unlink(missing_ok=True)
    # records are written in order, so the finals' teams are known when they are made
    for mid, *_ in POOLS + FINALS:
        t = from_dict(d, HERE)
        m = t.matches[mid]
        teams = standings(t).match(mid).teams
        rec = header(t, m, teams)
        hg = {"A": 0, "B": 0}
        probe = dict(rec, events=[])
        hg = replay(probe)["handicap_goals"]
        score = scores[mid]
        if score is None:
            rec["events"] = [
                {"at": 0.0, "type": "bowl_in"},
                {"at": 95.0, "type": "forfeit", "team": "A"},
                {"at": 95.5, "type": "forfeit", "team": "B"},
            ]
        else:
            fa, fb = score[0] - hg["A"], score[1] - hg["B"]
            assert fa >= 0 and fb >= 0, (mid, score, hg)
            rec["events"] = scripted_events((fa, fb))
            got = replay(rec)["score"]
            assert (got["A"], got["B"]) == score, (mid, got, score)
        (HERE / "matches" / f"{mid}.json").write_text(record_dumps(rec), encoding="utf-8")
    (HERE / "fall-classic.toml").write_text(dumps(from_dict(d, HERE)), encoding="utf-8")


if __name__ == "__main__":
    main()
