"""Issue 33, club rules: a committee's own edition carried in the record (record 1.3).

A club edition is its base with some parameters changed; every value it sets is checked
at the header, and whatever depends on it cites "club rules: <name>", never a USPA clause.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chukker.engine import EngineError, Setup, SetupError, replay
from chukker.record import dumps, loads
from chukker.record import replay as record_replay
from chukker.rules.club import club_doc, club_edition, differences, starting_toml
from chukker.rules.editions import EDITIONS

PLAYERS = [{"no": 1, "handicap": 0}, {"no": 2, "handicap": 0}, {"no": 3, "handicap": 0}]
PINE = {"base": "uspa-arena-2026", "name": "Pine Hill winter league",
        "regulation": {"count": 4, "length_s": 360, "intervals_s": [180, 300, 180]}}
SIX_FIVE = {"base": "uspa-arena-2026", "name": "School league",
            "six": {"count": 6, "length_s": 300, "intervals_s": [120, 120, 300, 120, 120]}}


def header(edition: Any = PINE, **options: Any) -> dict[str, Any]:
    return {
        "rules": "club",
        "edition": copy.deepcopy(edition),
        "options": {"handicap": False, **options},
        "teams": {"A": {"name": "Blue", "captain": 1, "players": PLAYERS},
                  "B": {"name": "White", "captain": 1, "players": PLAYERS}},
    }


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def refused(doc: dict[str, Any]) -> SetupError:
    with pytest.raises(SetupError) as e:
        Setup.from_dict(doc)
    return e.value


def test_club_edition_plays_the_clubs_periods_and_intervals() -> None:
    s = Setup.from_dict(header())
    r = replay(s, [ev(0, "bowl_in")], at_ms=400_000)
    assert r["status"] == "interval" and r["period"] == 1
    assert [h["at"] for h in r["horns"]] == [360.0]
    # the interval after period 1 is the club's 180 s: period 2 may start at 540 s
    with pytest.raises(EngineError) as e:
        replay(s, [ev(0, "bowl_in"), ev(539.9, "bowl_in")])
    assert e.value.code == "interval_running"
    r2 = replay(s, [ev(0, "bowl_in"), ev(540, "bowl_in")], at_ms=600_000)
    assert r2["period"] == 2 and r2["clock"]["remaining_ms"] == 300_000


def test_club_rules_the_report_names_the_edition_and_its_base() -> None:
    r = replay(Setup.from_dict(header()), [ev(0, "bowl_in")], at_ms=1000)
    assert r["rules"]["edition"] == "club"
    assert r["rules"]["name"] == "Pine Hill winter league"
    assert r["rules"]["base"] == "uspa-arena-2026"
    assert r["rules"]["changed"] == ["regulation"]


def test_uspa_report_rules_names_the_edition() -> None:
    doc = header()
    doc["rules"] = "uspa-arena-2026"
    del doc["edition"]
    r = replay(Setup.from_dict(doc), [ev(0, "bowl_in")], at_ms=1000)
    assert r["rules"] == {"edition": "uspa-arena-2026", "title": "USPA Arena Rules 2026"}


def test_club_rules_a_horn_set_by_a_club_value_cites_the_club_not_rule_5() -> None:
    r = replay(Setup.from_dict(header()), [ev(0, "bowl_in")], at_ms=400_000)
    assert r["horns"][0]["clause"] == "club rules: Pine Hill winter league"
    # a club that changed only the warning: the end horn is the base's (no citation)
    warn = {"base": "uspa-arena-2026", "name": "Warned", "warning_at_s": 20}
    r2 = replay(Setup.from_dict(header(warn, warning_horn=True)), [ev(0, "bowl_in")],
                at_ms=460_000)
    kinds = {h["kind"]: h for h in r2["horns"]}
    assert kinds["warning"]["at"] == 430.0 and kinds["warning"]["clause"] == "club rules: Warned"
    assert "clause" not in kinds["end"]


def test_club_rules_an_interval_refusal_cites_the_club() -> None:
    s = Setup.from_dict(header())
    with pytest.raises(EngineError) as e:
        replay(s, [ev(0, "bowl_in"), ev(400, "bowl_in")])
    assert e.value.params["club"] == "Pine Hill winter league"
    assert "(club rules: Pine Hill winter league)" in str(e.value)
    assert "Rule 5" not in str(e.value)


def test_club_rules_a_notice_of_a_club_value_cites_the_club() -> None:
    ed = {"base": "uspa-arena-2026", "name": "Quick split", "mount_change_max_s": 60}
    s = Setup.from_dict(header(ed, split_periods=True))
    r = replay(s, [ev(0, "bowl_in"), ev(215, "whistle"), ev(300, "bowl_in")], at_ms=301_000)
    (n,) = [n for n in r["notices"] if n["code"] == "mount_change_long"]
    assert n["clause"] == "club rules: Quick split"


def test_club_rules_six_periods_of_five_minutes_count_to_six() -> None:
    s = Setup.from_dict(header(SIX_FIVE, periods="six"))
    events = [ev(0, "bowl_in")]
    t = 0.0
    for _p in range(2, 7):
        t += 300 + (300 if _p == 4 else 120)
        events.append(ev(t, "bowl_in"))
    r = replay(s, events, at_ms=int((t + 1) * 1000))
    assert r["period"] == 6 and r["status"] == "in_play"
    assert r["clock"]["remaining_ms"] == 299_000


def test_club_rules_an_interval_of_zero_starts_the_next_period_at_once() -> None:
    ed = {"base": "uspa-arena-2026", "name": "No rest",
          "regulation": {"count": 2, "length_s": 60, "intervals_s": [0]}}
    s = Setup.from_dict(header(ed))
    r = replay(s, [ev(0, "bowl_in"), ev(60, "bowl_in")], at_ms=61_000)
    assert r["period"] == 2 and r["status"] == "in_play"
    final = replay(s, [ev(0, "bowl_in"), ev(60, "bowl_in"), ev(70, "goal", team="B")],
                   at_ms=200_000)
    assert final["status"] == "final" and final["winner"] == "B"


def test_club_rules_without_split_periods_refuses_the_option() -> None:
    ed = {"base": "uspa-arena-2026", "name": "No splits", "without": ["split_periods"]}
    assert refused(header(ed, split_periods=True)).code == "not_in_edition"


@pytest.mark.parametrize(("edition", "path", "code"), [
    ({**PINE, "late_penalty_reset_s": 60,
      "regulation": {"count": 4, "length_s": 60, "intervals_s": [60, 60, 60]}},
     "edition.regulation.length_s", "club_period_short"),
    ({**PINE, "regulation": {"count": 4, "length_s": 360, "intervals_s": [180, -1, 180]}},
     "edition.regulation.intervals_s[1]", "club_value_range"),
    ({**PINE, "regulation": {"count": 4, "length_s": 360, "intervals_s": [180, 180]}},
     "edition.regulation.intervals_s", "club_intervals_count"),
    ({**PINE, "name": "<script>alert(1)</script>"}, "edition.name", "club_name_markup"),
    ({**PINE, "name": ""}, "edition.name", "club_name"),
    ({**PINE, "name": "x" * 81}, "edition.name", "club_name"),
    ({**PINE, "regulation": {"count": 13, "length_s": 360, "intervals_s": [0] * 12}},
     "edition.regulation.count", "club_count_range"),
    ({**PINE, "regulation": {"count": 4, "length_s": 1801, "intervals_s": [0, 0, 0]}},
     "edition.regulation.length_s", "club_value_range"),
    ({**PINE, "regulation": {"count": 4, "length_s": 360.0001, "intervals_s": [0, 0, 0]}},
     "edition.regulation.length_s", "club_value_precision"),
    ({**PINE, "shootout_interval_s": 1801}, "edition.shootout_interval_s", "club_value_range"),
    ({**PINE, "shootout_interval_s": float("nan")}, "edition.shootout_interval_s",
     "club_value_range"),
    ({**PINE, "split_after_ms": 1000}, "edition.split_after_ms", "club_unknown_key_near"),
    ({**PINE, "base": "fip-2025"}, "edition.base", "club_base"),
    ({**PINE, "base": "uspa-arena-2006", "without": ["split_periods"]}, "edition.without[0]",
     "club_feature_not_in_base"),
    ({**PINE, "shootout_attempts_before_move": 0}, "edition.shootout_attempts_before_move",
     "club_count_range"),
    ([1, 2], "edition", "club_edition_missing"),
])
def test_club_rules_bad_values_are_refused_at_the_header_with_their_path(
        edition: Any, path: str, code: str) -> None:
    e = refused(header(edition))
    assert (e.path, e.code) == (path, code)


def test_club_rules_need_an_edition_and_an_edition_needs_club_rules() -> None:
    doc = header()
    del doc["edition"]
    assert refused(doc).code == "club_edition_missing"
    doc = header()
    doc["rules"] = "uspa-arena-2026"
    assert refused(doc).code == "club_edition_without_club"


def test_club_rules_a_split_or_warning_after_the_period_end_is_refused() -> None:
    ed = {"base": "uspa-arena-2026", "name": "Short", "regulation": {
        "count": 4, "length_s": 180, "intervals_s": [60, 60, 60]}}
    e = refused(header(ed, split_periods=True))
    assert (e.path, e.code) == ("edition.split_after_s", "club_past_period_end")
    ed2 = {**ed, "warning_at_s": 180}
    e2 = refused(header(ed2, warning_horn=True))
    assert (e2.path, e2.code) == ("edition.warning_at_s", "club_past_period_end")


@pytest.mark.parametrize("lang", ["es", "it"])
def test_club_rules_every_refusal_has_its_words_in_es_and_it(lang: str) -> None:
    from chukker.engine.errors import CLUB_MESSAGES, MESSAGES
    from chukker.i18n import translations

    gettext = translations(lang).gettext
    for code, template in [*((c, t) for c, t in MESSAGES.items() if c.startswith("club_")),
                           *CLUB_MESSAGES.items()]:
        assert gettext(template) != template, (lang, code)


def test_club_rules_the_record_round_trips_in_json_and_toml() -> None:
    rec = {**header(), "events": [ev(0, "bowl_in"), ev(100.5, "goal", team="A")]}
    for fmt in ("json", "toml"):
        text = dumps(rec, fmt)  # type: ignore[arg-type]
        back = loads(text, fmt)  # type: ignore[arg-type]
        assert back["edition"] == rec["edition"] and back["rules"] == "club"
        assert record_replay(back, at_ms=200_000) == record_replay(rec, at_ms=200_000)
    assert json.loads(json.dumps(rec)) == rec


def test_club_rules_the_edition_doc_is_what_the_club_set() -> None:
    ed = club_edition({**PINE, "shootout_interval_s": 90.5, "without": ["move_to_15"]})
    assert club_doc(ed) == {**PINE, "shootout_interval_s": 90.5, "without": ["move_to_15"]}
    assert club_edition(club_doc(ed)) == ed


def test_club_rules_differences_list_what_the_club_changed() -> None:
    ed = club_edition({**PINE, "without": ["split_periods"]})
    diff = differences(ed, EDITIONS["uspa-arena-2026"])
    assert [d[0] for d in diff] == ["regulation", "without"]
    assert diff[0][1] == "4 x 450 s, intervals [240, 600, 240]"


def test_club_rules_the_starting_file_is_a_club_edition_of_its_base() -> None:
    import tomllib

    doc = tomllib.loads(starting_toml(EDITIONS["uspa-arena-2026"]))
    ed = club_edition(doc)
    assert differences(ed, EDITIONS["uspa-arena-2026"]) == []


_plan = st.integers(1, 12).flatmap(lambda n: st.fixed_dictionaries({
    "count": st.just(n),
    "length_s": st.integers(60, 1800),
    "intervals_s": st.lists(st.integers(0, 1800), min_size=n - 1, max_size=n - 1),
}))


@given(plan=_plan, reset=st.integers(1, 59), shootout=st.booleans())
def test_club_rules_any_valid_edition_plays_to_the_end_without_a_horn_in_the_past(
        plan: dict[str, Any], reset: int, shootout: bool) -> None:
    ed = {"base": "uspa-arena-2026", "name": "Any", "regulation": plan,
          "late_penalty_reset_s": reset}
    s = Setup.from_dict(header(ed, tiebreak="shootout" if shootout else "extra-periods"))
    events = [ev(0, "bowl_in")]
    t = 0
    for k in range(1, plan["count"]):
        t += plan["length_s"] + plan["intervals_s"][k - 1]
        events.append(ev(t, "bowl_in"))
    events.append(ev(t + 1, "goal", team="A"))
    end = (t + plan["length_s"]) * 1000
    r = replay(s, events, at_ms=end + 1)
    assert r["status"] == "final" and r["winner"] == "A"
    ats = [h["at"] for h in r["horns"]]
    assert ats == sorted(ats) and len([h for h in r["horns"] if h["kind"] == "end"]) == \
        plan["count"]
    assert all(h["clause"] == "club rules: Any" for h in r["horns"])
