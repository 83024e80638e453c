"""Issue 33 in tournaments: a tournament file may name a club's edition for all its
matches; the schedule's slot is the club's periods and intervals; the matches carry it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tests.tournament.test_schedule import doc

from chukker.engine import Setup
from chukker.tournament.check import check
from chukker.tournament.model import from_dict, loads
from chukker.tournament.records import header
from chukker.tournament.schedule import slot_minutes

PINE = {"base": "uspa-arena-2026", "name": "Pine Hill winter league",
        "regulation": {"count": 4, "length_s": 360, "intervals_s": [180, 300, 180]}}


def club(**edition: Any) -> dict[str, object]:
    return doc(rules="club", edition={**PINE, **edition})


def test_club_tournament_slot_length_comes_from_the_clubs_periods_and_intervals() -> None:
    # 4 x 6:00 + 3 + 5 + 3 min = 35 min, + 15 allowance = 50
    assert slot_minutes(from_dict(club())) == 50


EXAMPLE = Path(__file__).parents[2] / "examples" / "tournament" / "fall-classic.toml"
EDITION_TOML = """
[edition]
base = "uspa-arena-2026"
name = "Pine Hill winter league"

[edition.regulation]
count = 4
length_s = 360
intervals_s = [180, 300, 180]
"""


def test_club_tournament_is_sound_and_its_matches_carry_the_edition() -> None:
    text = EXAMPLE.read_text().replace('rules = "uspa-arena-2026"', 'rules = "club"')
    t = loads(text + EDITION_TOML, base=EXAMPLE.parent)
    assert [str(p) for p in check(t) if "record" not in p.code] == []
    m = next(iter(t.matches.values()))
    a, b = list(t.teams)[:2]
    h = header(t, m, (a, b))
    assert h["rules"] == "club" and h["edition"] == PINE
    assert Setup.from_dict(h).edition.club is not None


def test_club_tournament_a_bad_edition_is_a_problem_naming_its_path() -> None:
    t = from_dict(club(regulation={"count": 4, "length_s": 360, "intervals_s": [180]}))
    probs = [p for p in check(t) if p.code == "match_options"]
    assert probs, [str(p) for p in check(t)]
    assert "edition.regulation.intervals_s" in str(probs[0])
    es = probs[0].said(lambda s: s)
    assert "intervals" in es


def test_club_tournament_the_edition_round_trips_through_toml() -> None:
    import tomli_w

    t = from_dict(club())
    text = tomli_w.dumps(t.to_dict())
    assert tomllib.loads(text)["edition"] == PINE
    assert loads(text).extra["edition"] == PINE


def test_issue_42_the_tournament_page_names_the_club_edition_by_its_name(
        tmp_path: Path, monkeypatch: Any) -> None:
    import datetime as dt
    import warnings

    from tests.web.conftest import OPEN, ORGANISER_AUTH

    from chukker.tournament.cli import starting_doc
    from chukker.tournament.model import dumps
    from chukker.web import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "t"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        d = starting_doc("Cup", "Pine Hill", [dt.date(2026, 12, 5)], ["Arena 1"], ["A", "B"])
        d.update(rules="club", edition=PINE)
        r = c.post("/tournaments/api", json={"text": dumps(from_dict(d))},
                   headers=ORGANISER_AUTH)
        assert r.status_code == 201, r.text
        html = c.get(f"/tournaments/{r.json()['tournament_id']}?lang=en").text
    assert "Pine Hill winter league (club rules on USPA Arena Rules 2026)" in html
