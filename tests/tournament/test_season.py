"""The season (issue 21, "Season, a first step"): results, roll of honour, goals and
penalties per player and per clause, all derived from the records; ``chukker season
export``, one CSV line per match, and its round trip."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chukker.cli import app
from chukker.record import dumps as record_dumps
from chukker.tournament.model import dumps, from_dict
from chukker.tournament.records import header, scripted_events
from chukker.tournament.season import (
    RosterEntry,
    SeasonRow,
    columns,
    load_season,
    read_season_csv,
    season_csv,
)

EXAMPLE = Path(__file__).parents[2] / "examples" / "tournament" / "fall-classic.toml"


def test_season_of_the_example_tournament() -> None:
    s = load_season([EXAMPLE])
    assert len(s.rows) == 15
    by_id = {r.match: r for r in s.rows}
    a1 = by_id["a1"]
    assert (a1.date, a1.time, a1.arena) == ("2026-12-05", "10:00", "Arena 1")
    assert (a1.team_a, a1.team_b, a1.score_a, a1.score_b) == ("Los Potros", "Giles Farm", 7, 14)
    assert (a1.winner, a1.decided_by) == ("Giles Farm", "regulation")
    assert [p.name for p in a1.roster_a] == ["Ann Potros", "Bea Potros", "Cat Potros"]
    assert a1.handicap_a == sum(p.handicap for p in a1.roster_a)
    # the double forfeit: both forfeited, no winner
    b4 = by_id["b4"]
    assert (b4.forfeited, b4.winner, b4.decided_by) == ("both", "", "forfeit")
    # roll of honour: the final's winner and loser
    assert [(h.tournament, h.winner, h.runner_up) for h in s.honours] == [
        ("Fall Arena Classic", "Giles Farm", "Condors")
    ]
    # goals per player come from the records: their sum is every player's goal
    total = sum(
        1
        for r in s.tournaments[0].standings.matches
        if r.report and r.status == "final"
        for g in r.report["goals"]
        if g.get("player") is not None
    )
    assert sum(g.goals for g in s.goals) == total
    assert s.goals == sorted(s.goals, key=lambda g: (-g.goals, -g.points, g.player, g.team))


def test_season_csv_round_trip_of_the_example() -> None:
    s = load_season([EXAMPLE])
    text = season_csv(s.rows)
    assert read_season_csv(text) == s.rows
    lines = list(csv.DictReader(io.StringIO(text)))
    assert len(lines) == 15 and list(lines[0]) == columns()
    b4 = next(x for x in lines if x["match"] == "b4")
    assert b4["forfeited"] == "both" and b4["winner"] == ""


names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=20)


@st.composite
def rows(draw: Any) -> SeasonRow:
    def roster() -> tuple[RosterEntry, ...]:
        n = draw(st.integers(0, 3))
        return tuple(
            RosterEntry(k, draw(names.filter(bool)), draw(st.integers(-2, 10)))
            for k in range(1, n + 1)
        )

    score = draw(st.none() | st.tuples(st.integers(0, 40), st.integers(0, 40)))
    return SeasonRow(
        tournament=draw(names),
        venue=draw(names),
        match=draw(names),
        stage=draw(names),
        date=draw(st.sampled_from(["", "2026-12-05"])),
        time=draw(st.sampled_from(["", "10:00"])),
        arena=draw(names),
        team_a=draw(names),
        team_b=draw(names),
        roster_a=roster(),
        roster_b=roster(),
        status=draw(st.sampled_from(["final", "scheduled", "in_play", "refused"])),
        score_a=None if score is None else score[0],
        score_b=None if score is None else score[1],
        winner=draw(names),
        decided_by=draw(st.sampled_from(["", "regulation", "shootout", "forfeit"])),
        forfeited=draw(st.sampled_from(["", "A", "B", "both"])),
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(rows(), max_size=5))
def test_season_csv_round_trip(rs: list[SeasonRow]) -> None:
    assert read_season_csv(season_csv(rs)) == rs


def _club_tournament(folder: Path, name: str, fouls: bool) -> Path:
    """Two teams, one played match with (optionally) two fouls."""
    players, teams = [], []
    for x in ("reds", "blues"):
        ids = [f"{x}{i}" for i in (1, 2, 3)]
        teams.append({"id": x, "name": x.title(), "players": ids, "captain": ids[0]})
        for pid in ids:
            players.append({"id": pid, "name": pid.title(), "registered": [2026],
                            "handicaps": [{"from": dt.date(2026, 1, 1), "value": 1}]})  # fmt: skip
    doc = {
        "format": "chukker-tournament/1",
        "name": name,
        "players": players,
        "teams": teams,
        "stages": [{"id": "final", "kind": "single-elimination"}],
        "matches": [
            {
                "id": "f1",
                "stage": "final",
                "arena": "Arena 1",
                "start": dt.datetime(2026, 6, 1, 10),
                "teams": ["reds", "blues"],
                "record": f"{name}-f1.json",
            }
        ],
    }
    t = from_dict(doc, folder)
    rec = header(t, t.matches["f1"], ("reds", "blues"))
    events = scripted_events((3, 2))
    if fouls:
        # the clock stops from each foul to its free hit: 20 s later for what follows
        for ev in events[1:]:
            ev["at"] = round(ev["at"] + 20.0, 3)
        # a foul by Blues No. 2 (Rule 13b, Penalty 3) and one by Reds No. 1 (13b, Penalty 2)
        events[1:1] = [
            {"at": 10.0, "type": "foul", "team": "B", "player": 2, "clause": "13b",
             "penalty": "3"},
            {"at": 20.0, "type": "free_hit"},
            {"at": 30.0, "type": "foul", "team": "A", "player": 1, "clause": "13b",
             "penalty": "2"},
            {"at": 40.0, "type": "free_hit"},
        ]  # fmt: skip
    rec["events"] = events
    (folder / f"{name}-f1.json").write_text(record_dumps(rec))
    path = folder / f"{name}.toml"
    path.write_text(dumps(t))
    return path


def test_season_penalties_per_player_and_per_clause(tmp_path: Path) -> None:
    a = _club_tournament(tmp_path, "spring", fouls=True)
    b = _club_tournament(tmp_path, "summer", fouls=True)
    s = load_season([a, b])
    assert [(h.tournament, h.winner, h.runner_up) for h in s.honours] == [
        ("spring", "Reds", "Blues"),
        ("summer", "Reds", "Blues"),
    ]
    assert [(p.player, p.team, p.fouls, p.by_penalty) for p in s.penalties] == [
        ("Blues2", "Blues", 2, (("3", 2),)),
        ("Reds1", "Reds", 2, (("2", 2),)),
    ]
    assert [(c.clause, c.fouls, c.by_penalty) for c in s.clauses] == [
        ("13b", 4, (("2", 2), ("3", 2)))
    ]
    reds = [g for g in s.goals if g.team == "Reds"]
    assert sum(g.goals for g in reds) == 6 and all(g.matches == 2 for g in reds)


def test_season_export_cli_from_files(tmp_path: Path) -> None:
    a = _club_tournament(tmp_path, "spring", fouls=False)
    out = tmp_path / "season.csv"
    res = CliRunner().invoke(app, ["season", "export", str(EXAMPLE), str(a), "-o", str(out)])
    assert res.exit_code == 0, res.output
    got = read_season_csv(out.read_text())
    assert len(got) == 16 and got[-1].tournament == "spring" and got[-1].winner == "Reds"
    res = CliRunner().invoke(app, ["season", "export", str(tmp_path / "nope.toml")])
    assert res.exit_code == 3 and "cannot read" in res.stderr


def test_season_export_cli_from_the_servers_tournaments(tmp_path: Path, monkeypatch: Any) -> None:
    """The tournaments a server holds: its tournaments folder and its database."""
    from chukker.store import open_store

    folder = tmp_path / "tournaments"
    folder.mkdir()
    db = tmp_path / "chukker.sqlite3"
    src = _club_tournament(tmp_path, "spring", fouls=True)
    rec = json.loads((tmp_path / "spring-f1.json").read_text())
    events = rec.pop("events")
    store = open_store(db)
    store.create_match("live1", rec, 1_000, "tk", "cm")
    from chukker.store import StoredEvent

    for i, ev in enumerate(events, 1):
        store.append("live1", StoredEvent(i, f"c{i}", ev, 1_000 + i, "timekeeper"), 1_000)
    store.close()
    from chukker.tournament.model import load_path

    t = load_path(src)
    doc = json.loads(json.dumps(t.to_dict(), default=str))
    (folder / "abcd.json").write_text(
        json.dumps(
            {
                "id": "abcd",
                "doc": doc,
                "committee_hash": "x",
                "arena_hash": {},
                "live": {"f1": "live1"},
            }
        )
    )
    (folder / "junk.json").write_text("not json")
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(folder))
    res = CliRunner().invoke(app, ["season", "export", "--db", str(db)])
    assert res.exit_code == 0, res.output
    got = read_season_csv(res.stdout)
    assert [(r.tournament, r.match, r.winner, r.score_a, r.score_b) for r in got] == [
        ("spring", "f1", "Reds", 3, 2)
    ]


def test_season_page_and_csv_of_the_servers_tournaments(tmp_path: Path, monkeypatch: Any) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from tests.tournament.web_helpers import RESULTS, four_team_toml, post
    from tests.web.conftest import OPEN

    from chukker.web import create_app

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        assert "No tournaments yet." in c.get("/tournaments/season").text
        body = c.post("/tournaments/api", json={"text": four_team_toml()}).json()
        tokens = {a: v["token"] for a, v in body["arenas"].items()}
        for mid, events in RESULTS.items():
            tok = tokens["Arena 1" if int(mid[1:]) % 2 else "Arena 2"]
            live = body["matches"][mid]
            assert post(c, "", live, tok, {"type": "bowl_in"}).status_code == 201
            if mid == "m2":  # a foul by Golds No. 2 (Rule 13b, Penalty 3) before the forfeit
                foul = {"type": "foul", "team": "B", "player": 2, "clause": "13b", "penalty": "3"}
                assert post(c, "", live, tok, foul).status_code == 201
                assert post(c, "", live, tok, {"type": "free_hit"}).status_code == 201
            for ev in events:
                assert post(c, "", live, tok, ev).status_code == 201
        page = c.get("/tournaments/season")
        assert page.status_code == 200
        html = page.text
        assert "Roll of honour" in html and "Four Cup" in html
        assert "Golds 2" in html and "Rule 13b" in html and "Penalty 3 × 1" in html
        assert "Golds forfeited" in html and "Greens forfeited" in html
        es = c.get("/tournaments/season?lang=es").text
        assert "Palmarés" in es and "Regla 13b" in es
        got = read_season_csv(c.get("/tournaments/season.csv").text)
        assert len(got) == 7
        m1 = next(r for r in got if r.match == "m1")
        assert (m1.team_a, m1.team_b, m1.winner, m1.forfeited) == ("Reds", "Blues", "Reds", "B")
        assert [p.name for p in m1.roster_a] == ["Reds 1", "Reds 2", "Reds 3"]
        # the tournament's page links the season, and the index too
        assert "/tournaments/season" in c.get("/tournaments").text
