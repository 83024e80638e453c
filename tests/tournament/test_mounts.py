"""Issue 25 in the tournament: each team's string, Rule 2 across teams, the welfare limit,
and the match headers that carry the strings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from chukker.cli import build_app
from chukker.engine import replay
from chukker.record import dumps
from chukker.tournament.check import check
from chukker.tournament.model import loads
from chukker.tournament.mounts import over_limit, ridden_by_day
from chukker.tournament.records import header
from chukker.tournament.standings import replay_all, standings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tournament" / "fall-classic.toml"
STARTS = [0.0, 690.0, 1740.0, 2430.0]
POTROS = ('mounts = [{ id = "p-bay", name = "Bay", owner = "Ann" }, '
          '{ id = "p-chico", name = "Chico" }, { id = "p-dora", name = "Dora" }, '
          '{ id = "p-elsa", name = "Elsa" }]')
GILES = ('mounts = [{ id = "g-fox", name = "Fox" }, { id = "g-gala", name = "Gala" }, '
         '{ id = "g-halo", name = "Halo" }]')


def with_strings(text: str, extra_giles: str = "", limit: int | None = 3) -> str:
    out = text.replace('id = "potros"\n', f'id = "potros"\n{POTROS}\n', 1)
    g = GILES if not extra_giles else GILES.replace("]", f", {extra_giles}]", 1)
    out = out.replace('id = "giles"\n', f'id = "giles"\n{g}\n', 1)
    if limit is not None:
        out = out.replace("[match_options]", f"[mount_limits]\nperiods_per_day = {limit}\n\n"
                          "[match_options]", 1)
    return out


def write(tmp_path: Path, text: str, events: list[dict[str, Any]] | None = None) -> Path:
    (tmp_path / "matches").mkdir(exist_ok=True)
    t = loads(text, base=tmp_path)
    if events is not None:
        doc = header(t, t.matches["a1"], ("potros", "giles"))
        doc["events"] = events
        (tmp_path / "matches" / "a1.json").write_text(dumps(doc), encoding="utf-8")
    path = tmp_path / "t.toml"
    path.write_text(text, encoding="utf-8")
    return path


def a1_events() -> list[dict[str, Any]]:
    evs: list[dict[str, Any]] = [
        {"at": 0, "type": "mount", "team": "A", "player": 1, "mount": "p-bay"},
        {"at": 0, "type": "mount", "team": "A", "player": 2, "mount": "p-chico"},
        {"at": 0, "type": "mount", "team": "B", "player": 1, "mount": "g-fox"},
    ]
    for k, x in enumerate(STARTS):
        if k == 2:
            evs.append({"at": x - 1, "type": "mount", "team": "A", "player": 2,
                        "mount": "p-dora"})
        evs.append({"at": x, "type": "bowl_in"})
        evs.append({"at": x + 10 + k, "type": "goal", "team": "A", "player": 1})
    return evs


def test_tournament_match_headers_carry_the_teams_strings(tmp_path: Path) -> None:
    text = with_strings(EXAMPLE.read_text(encoding="utf-8"))
    t = loads(text, base=tmp_path)
    doc = header(t, t.matches["a1"], ("potros", "giles"))
    assert [m["id"] for m in doc["teams"]["A"]["mounts"]] == ["p-bay", "p-chico", "p-dora",
                                                             "p-elsa"]
    assert doc["teams"]["A"]["mounts"][0] == {"id": "p-bay", "name": "Bay", "owner": "Ann"}
    assert "mounts" not in header(t, t.matches["b1"], ("condors", "lobos"))["teams"]["A"]
    path = write(tmp_path, text)
    res = CliRunner().invoke(build_app(["tournament"]), ["tournament", "match", str(path), "a1"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["teams"]["B"]["mounts"][2]["id"] == "g-halo"
    assert loads(text).teams["potros"].to_dict()["mounts"][1] == {"id": "p-chico",
                                                                  "name": "Chico"}


def test_rule_2_tournament_check_reports_a_mount_on_two_teams_strings(tmp_path: Path) -> None:
    text = with_strings(EXAMPLE.read_text(encoding="utf-8"),
                        extra_giles='{ id = "p-chico", name = "Chico II" }, '
                                    '{ id = "g-bay", name = "bay", owner = "ann" }')
    t = loads(text, base=tmp_path)
    found = [p for p in check(t) if p.code == "mount_two_teams"]
    assert len(found) == 2
    assert "p-chico is on the strings of potros and giles" in found[0].message
    assert "Bay (Ann)" in found[1].message or "bay (ann)" in found[1].message
    assert all("Rule 2" in p.message for p in found)


def test_tournament_welfare_names_a_mount_ridden_over_the_days_limit(tmp_path: Path) -> None:
    text = with_strings(EXAMPLE.read_text(encoding="utf-8"), limit=3)
    path = write(tmp_path, text, a1_events())
    t = loads(path.read_text(encoding="utf-8"), base=tmp_path)
    played = replay_all(t)
    assert not isinstance(played["a1"], str), played["a1"]
    problems = [p for p in check(t) if p.code == "mount_periods_per_day"]
    assert [p.subject for p in problems] == ["mount g-fox", "mount p-bay"]
    assert "potros's p-bay was ridden in 4 periods on 2026-12-05 (a1)" in problems[1].message
    s = standings(t, played)
    by = ridden_by_day(t, played, s)
    day = t.matches["a1"].start.date()  # type: ignore[union-attr]
    assert [x[1] for x in by[("potros", "p-chico", day)].periods] == [1, 2]
    assert [x[1] for x in by[("potros", "p-dora", day)].periods] == [3, 4]
    # the team page reads the horse's name (issue 30)
    assert over_limit(t, played, s, "potros") == [
        {"mount": "Bay", "id": "p-bay", "day": "2026-12-05", "periods": 4, "limit": 3}]
    assert [x["mount"] for x in over_limit(t, played, s, "giles")] == ["Fox"]
    assert over_limit(t, played, s, "condors") == []
    # the same records without the limit: nothing to say
    t2 = loads(with_strings(EXAMPLE.read_text(encoding="utf-8"), limit=None), base=tmp_path)
    assert [p for p in check(t2) if p.code.startswith("mount")] == []


def test_tournament_mount_limits_must_be_a_whole_number(tmp_path: Path) -> None:
    text = with_strings(EXAMPLE.read_text(encoding="utf-8"), limit=0)
    assert any(p.subject == "mount_limits" for p in check(loads(text, base=tmp_path)))


def test_record_made_for_the_tournament_replays_with_its_strings(tmp_path: Path) -> None:
    text = with_strings(EXAMPLE.read_text(encoding="utf-8"))
    t = loads(text, base=tmp_path)
    from chukker.record import setup_of

    doc = header(t, t.matches["a1"], ("potros", "giles"))
    r = replay(setup_of(doc), a1_events())
    assert r["mounts"]["A"]["p-bay"]["periods"] == [1, 2, 3, 4]
