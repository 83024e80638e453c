"""``check``: eligibility on the day (Rule 3), team limits, unknown ids, records."""

from __future__ import annotations

import copy
import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from chukker.record import check as record_check
from chukker.record import dumps as record_dumps
from chukker.tournament import check, from_dict, load_path, standings
from chukker.tournament.records import header, scripted_events

EXAMPLE = Path(__file__).parents[2] / "examples" / "tournament"


def base(**kw: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "chukker-tournament/1",
        "name": "Cup",
        "team_handicap": {"min": 0, "max": 6},
        "players": [
            {
                "id": p,
                "name": p.title(),
                "registered": [2026],
                "handicaps": [{"from": dt.date(2025, 5, 1), "value": 1}],
            }
            for p in ("ann", "bea", "cat", "dee", "eve", "fay")
        ],
        "teams": [
            {"id": "blue", "name": "Blue", "players": ["ann", "bea", "cat"], "captain": "bea"},
            {"id": "white", "name": "White", "players": ["dee", "eve", "fay"]},
        ],
        "stages": [{"id": "pool", "kind": "round-robin", "teams": ["blue", "white"]}],
        "matches": [
            {
                "id": "m1",
                "stage": "pool",
                "arena": "Arena 1",
                "start": dt.datetime(2026, 12, 5, 10),
                "teams": ["blue", "white"],
            }
        ],
    }
    doc.update(kw)
    return doc


def problems(doc: dict[str, Any], base_dir: Path | None = None) -> list[str]:
    return [str(p) for p in check(from_dict(doc, base_dir))]


def test_a_sound_tournament_has_no_problem() -> None:
    assert problems(base()) == []


def test_registration_in_the_year_of_play() -> None:
    doc = base()
    doc["players"][0]["registered"] = [2025]
    assert problems(doc) == ["match m1: player ann (Ann, blue) is not registered for 2026 (Rule 3)"]


def test_eligibility_on_the_day_a_handicap_takes_effect() -> None:
    doc = base()
    doc["players"][0]["handicaps"] = [{"from": dt.date(2026, 12, 5), "value": 2}]
    assert problems(doc) == []  # in force on its first day
    doc["players"][0]["handicaps"] = [{"from": dt.date(2026, 12, 6), "value": 2}]
    assert problems(doc) == [
        "match m1: player ann (Ann, blue) has no handicap in force on 2026-12-05 (Rule 3)"
    ]


def test_team_limits_at_the_edge() -> None:
    doc = base()
    doc["players"][0]["handicaps"].append({"from": dt.date(2026, 12, 1), "value": 4})
    assert problems(doc) == []  # 4 + 1 + 1 = 6 = max
    doc["players"][0]["handicaps"].append({"from": dt.date(2026, 12, 5), "value": 5})
    assert problems(doc) == ["match m1: team blue totals 7 on 2026-12-05, above the maximum 6"]
    doc = base(team_handicap={"min": 3, "max": 6})
    assert problems(doc) == []  # 3 = min
    doc["players"][3]["handicaps"] = [{"from": dt.date(2025, 1, 1), "value": 0}]
    assert problems(doc) == ["match m1: team white totals 2 on 2026-12-05, below the minimum 3"]


def test_unknown_ids_each_named() -> None:
    doc = base()
    doc["teams"][0]["players"] = ["ann", "bea", "zed"]
    doc["matches"].append({"id": "m2", "stage": "nope", "teams": ["blue", "reds"]})
    doc["decided"] = [{"stage": "pool", "by": "lot", "order": ["blue", "greens"]}]
    out = problems(doc)
    assert "team blue: player zed is not in the register" in out
    assert "match m2: stage 'nope' is not defined" in out
    assert "match m2: team reds is not defined" in out
    assert "decided[0]: team greens is not defined" in out


def test_team_of_three_and_one_team_per_player() -> None:
    doc = base()
    doc["teams"][1]["players"] = ["dee", "eve", "ann"]
    out = problems(doc)
    assert "player ann: plays for more than one team: blue, white" in out


def test_round_robin_every_pair_once() -> None:
    doc = base()
    doc["matches"].append(dict(doc["matches"][0], id="m2"))
    assert "stage pool: blue and white meet 2 times (every pair once)" in problems(doc)
    doc["matches"] = []
    assert problems(doc) == [
        "stage pool: blue and white do not meet (a round robin: every pair once)"
    ]


def _with_record(tmp_path: Path, mutate: Any = None, events: Any = None) -> list[str]:
    t = from_dict(base(), tmp_path)
    rec = header(t, t.matches["m1"], ("blue", "white"))
    rec["events"] = scripted_events((3, 2)) if events is None else events
    if mutate:
        mutate(rec)
    (tmp_path / "m1.json").write_text(record_dumps(rec))
    doc = base()
    doc["matches"][0]["record"] = "m1.json"
    return problems(doc, tmp_path)


def test_a_record_made_from_the_tournament_passes(tmp_path: Path) -> None:
    assert _with_record(tmp_path) == []
    t = from_dict(base(), tmp_path)
    rec = header(t, t.matches["m1"], ("blue", "white"))
    assert record_check(rec) == []
    assert rec["teams"]["A"]["captain"] == 2  # bea, No. 2


def test_a_record_that_does_not_replay(tmp_path: Path) -> None:
    out = _with_record(tmp_path, events=[{"at": 0, "type": "goal", "team": "A"}])
    assert len(out) == 1 and out[0].startswith("match m1: record m1.json does not replay: ")


def test_a_record_whose_roster_differs(tmp_path: Path) -> None:
    def mutate(rec: dict[str, Any]) -> None:
        rec["teams"]["A"]["players"][0]["handicap"] = 3
        rec["teams"]["B"]["players"][2]["name"] = "Zed"

    out = _with_record(tmp_path, mutate)
    assert out == [
        "match m1: record team A (blue): player ann (Ann) has handicap 3 in the record, "
        "1 in the register on 2026-12-05",
        "match m1: record team B (white): No. 3 'Zed' is not a player of white in the register",
    ]


def test_the_worked_example_is_sound_and_its_order_of_finish() -> None:
    t = load_path(EXAMPLE / "fall-classic.toml")
    assert check(t) == []
    s = standings(t).to_json()
    pa, pb = s["stages"][0], s["stages"][1]
    assert [(r["place"], r["team"], r["decided_by"]) for r in pa["table"]] == [
        (1, "giles", "wins"),
        (2, "potros", "net_goals"),
        (3, "halcones", "lot"),
        (4, "toros", None),
    ]
    assert [(r["place"], r["team"], r["decided_by"]) for r in pb["table"]] == [
        (1, "condors", "wins"),
        (2, "lobos", "net_goals"),
        (3, "zorros", "head_to_head"),
        (4, "pumas", None),
    ]
    m = {x["id"]: x for x in s["matches"]}
    assert m["a1"] == {
        "id": "a1",
        "status": "final",
        "teams": ["potros", "giles"],
        "score": [7, 14],
        "winner": "giles",
    }
    assert m["f1"]["teams"] == ["giles", "condors"] and m["f1"]["winner"] == "giles"


def test_the_example_as_json_gives_the_same_standings(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE / "matches", tmp_path / "matches")
    t = load_path(EXAMPLE / "fall-classic.toml")
    from chukker.tournament import dumps

    (tmp_path / "t.json").write_text(dumps(t, "json"))
    t2 = load_path(tmp_path / "t.json")
    assert standings(t2).to_json() == standings(t).to_json()
    assert json.loads((tmp_path / "t.json").read_text())["matches"][0]["start"] == (
        "2026-12-05T10:00:00"
    )


@pytest.mark.parametrize("criterion", ["wins", "cheese"])
def test_unknown_criterion(criterion: str) -> None:
    doc = copy.deepcopy(base(order_of_finish={"criteria": [criterion]}))
    out = problems(doc)
    assert (out == []) == (criterion == "wins")


def test_match_options_and_edition_as_the_engine_knows_them() -> None:
    out = problems(base(match_options={"periods": "seven"}, rules="uspa-arena-1999"))
    assert (
        "match_options: options.periods: unknown value 'seven' (one of 'regulation', 'six')" in out
    )
    assert any(p.startswith("tournament: rules: unknown edition") for p in out)


def test_malformed_parts_are_problems_not_crashes() -> None:
    doc = base()
    doc["players"][0]["handicaps"] = [{"from": "soon", "value": "two"}]
    doc["matches"][0]["teams"] = ["blue"]
    doc["teams"][1]["players"] = "dee"
    out = problems(doc)
    assert "player ann: handicap value must be a whole number, got 'two'" in out
    assert "match m1: teams must list exactly two teams (A and B of the match record)" in out
    assert "team white: players must be a list of ids" in out


def test_a_record_keyed_by_team_ids_in_another_order(tmp_path: Path) -> None:
    t = from_dict(base(), tmp_path)
    rec = header(t, t.matches["m1"], ("blue", "white"))
    rec["teams"] = {"white": rec["teams"]["B"], "blue": rec["teams"]["A"]}
    rec["events"] = scripted_events((4, 1), keys=("white", "blue"))  # white scores 4
    (tmp_path / "m1.json").write_text(record_dumps(rec))
    doc = base()
    doc["matches"][0]["record"] = "m1.json"
    t = from_dict(doc, tmp_path)
    assert check(t) == []
    m = standings(t).match("m1")
    assert m.winner == "white" and m.score == (1, 4)  # score in the match's order
