"""Issue 42: notices that follow from a club's value cite the club and use its value; a
club value its base has no use for is refused; the whistle's ``source`` has one list; and
the readings ``docs/engine.md`` ("Issue 42: readings decided") states, each held here."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from chukker.engine import EngineError, Match, Setup, SetupError, WhistleSource, replay
from chukker.engine.errors import CLUB_MESSAGES, MESSAGES
from chukker.record import RecordError
from chukker.record import replay as record_replay
from chukker.rules.club import ClubError, club_edition

PLAYERS = [{"no": 1, "handicap": 0}, {"no": 2, "handicap": 0}, {"no": 3, "handicap": 0}]
STRING = [{"id": m} for m in ("bay", "chico", "dora", "elsa", "gus")]
PLAN = {"1": ["bay", "dora", "bay", "elsa"], "2": ["chico", "elsa"], "3": ["gus"]}


def header(edition: Any = None, rules: str = "uspa-arena-2026", **options: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "rules": rules if edition is None else "club",
        "options": {"handicap": False, **options},
        "teams": {"A": {"name": "Blue", "captain": 1, "players": copy.deepcopy(PLAYERS),
                        "alternates": [{"no": 4, "handicap": 0}], "mounts": STRING,
                        "plan": PLAN},
                  "B": {"name": "White", "captain": 1, "players": copy.deepcopy(PLAYERS)}},
    }
    if edition is not None:
        doc["edition"] = edition
    return doc


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def mount(at: float, player: int, m: str) -> dict[str, Any]:
    return ev(at, "mount", team="A", player=player, mount=m)


LINE_UP = [mount(0, 1, "bay"), mount(0, 2, "chico"), mount(0, 3, "gus")]
TWO_MIN = {"base": "uspa-arena-2026", "name": "Oak Hill winter league",
           "injury_timeout_max_s": 120}


# ------------------------------------------------------------ club values cited
def test_rule_16_a_club_injury_limit_is_cited_with_the_clubs_value() -> None:
    s = Setup.from_dict(header(TWO_MIN))
    events = [ev(0, "bowl_in"), ev(10, "timeout", team="A", player=2, reason="injury")]
    r = replay(s, events, 131_000)
    (n,) = [n for n in r["notices"] if n["code"] == "injury_disabled"]
    assert n["clause"] == "club rules: Oak Hill winter league"
    assert n["text"] == ("injury time-out longer than 120.000 s (club rules: Oak Hill winter "
                         "league): A 2 is disabled")
    assert "15 minutes" not in n["text"]
    player = r["roster"]["A"]["players"]["2"]
    assert player["status"] == "retired"
    assert player["clause"] == "club rules: Oak Hill winter league"
    with pytest.raises(EngineError) as e:
        replay(s, [*events, ev(140, "bowl_in"), ev(150, "goal", team="A", player=2)])
    assert e.value.code == "player_retired"
    assert e.value.params["clause"] == "club rules: Oak Hill winter league"


def test_rule_16_the_base_injury_limit_still_cites_rule_16() -> None:
    s = Setup.from_dict(header())
    events = [ev(0, "bowl_in"), ev(10, "timeout", team="A", player=2, reason="injury")]
    r = replay(s, events, 10_000 + 15 * 60_000 + 2)
    (n,) = [n for n in r["notices"] if n["code"] == "injury_disabled"]
    assert n["clause"] == "16" and "15 minutes" in n["text"]
    assert r["roster"]["A"]["players"]["2"]["clause"] == "Rule 16"


def test_rule_5_a_club_without_further_rounds_cites_the_club_not_the_2006_clause() -> None:
    ed = {"base": "uspa-arena-2026", "name": "No rounds", "without": ["shootout_rounds"]}
    s = Setup.from_dict(header(ed, tiebreak="shootout", shootout_players="one"))
    starts = [0.0, 690.0, 1740.0, 2430.0]
    events = [ev(x, "bowl_in") for x in starts]
    so = starts[3] + 450 + 240
    events += [ev(so, "shootout_order", first="A", order={"A": [1], "B": [1]}),
               ev(so + 30, "shot", team="A", player=1, result="miss"),
               ev(so + 60, "shot", team="B", player=1, result="miss")]
    r = replay(s, events)
    (n,) = [n for n in r["notices"] if n["code"] == "shootout_tied_no_round"]
    assert n["clause"] == "club rules: No rounds" != "5"
    assert "No rounds" in n["text"]


def test_rule_5_a_club_value_its_base_has_no_use_for_is_refused() -> None:
    with pytest.raises(ClubError) as e:
        club_edition({"base": "uspa-arena-2006", "name": "Old", "late_penalty_reset_s": 5})
    assert e.value.code == "club_value_unused" and e.value.path == "edition.late_penalty_reset_s"
    assert e.value.code in MESSAGES
    with pytest.raises(SetupError):
        Setup.from_dict(header({"base": "uspa-arena-2006", "name": "Old", "split_after_s": 200}))


def test_club_rules_an_unknown_key_gets_did_you_mean() -> None:
    with pytest.raises(ClubError) as e:
        club_edition({"base": "uspa-arena-2026", "name": "X", "warning_at": 20})
    assert e.value.code == "club_unknown_key_near"
    assert e.value.params["suggestion"] == "warning_at_s"
    assert str(e.value) == ("edition.warning_at: not a parameter a club may set; did you mean "
                            "warning_at_s?")
    with pytest.raises(ClubError) as e2:
        club_edition({"base": "uspa-arena-2026", "name": "X", "zzz": 1})
    assert e2.value.code == "club_unknown_key"


def test_club_rules_a_value_restated_as_the_bases_stays_the_bases_and_cites_its_clause() -> None:
    ed = club_edition({"base": "uspa-arena-2026", "name": "Same", "warning_at_s": 30,
                       "injury_timeout_max_s": 900, "shootout_attempts_before_move": 2})
    assert ed.club is not None and ed.club.changed == ()
    assert ed.warning_at_ms.clause == "5.the-horn-ends-the-period"
    assert ed.injury_timeout_max_ms.clause == "16"
    assert ed.shootout_attempts_before_move.clause == "5.moving-the-ball-closer"
    s = Setup.from_dict(header({"base": "uspa-arena-2026", "name": "Same",
                                "injury_timeout_max_s": 900}))
    events = [ev(0, "bowl_in"), ev(10, "timeout", team="A", player=2, reason="injury")]
    r = replay(s, events, 10_000 + 15 * 60_000 + 2)
    (n,) = [n for n in r["notices"] if n["code"] == "injury_disabled"]
    assert n["clause"] == "16" and "club" not in n["params"]


@pytest.mark.parametrize("code", ["injury_disabled", "injury_disabled_unnamed",
                                  "shootout_tied_no_round"])
def test_club_rules_the_club_notices_have_their_words(code: str) -> None:
    from chukker.i18n import translations

    for lang in ("es", "it"):
        assert translations(lang).gettext(CLUB_MESSAGES[code]) != CLUB_MESSAGES[code]


# --------------------------------------------------------------- the whistle source
def test_record_1_3_the_whistle_source_is_one_list_for_engine_record_and_api() -> None:
    from chukker.record.definitions import EVENTS

    assert EVENTS["whistle"]["source"].values == tuple(str(s) for s in WhistleSource)
    doc = {**header(), "events": [ev(0, "bowl_in"), ev(5, "whistle", source="microphone")]}
    with pytest.raises(RecordError):
        record_replay(doc)
    with pytest.raises(EngineError) as e:  # the engine alone (strict=False, the live Match)
        record_replay(doc, strict=False)
    assert e.value.code == "whistle_source_invalid"
    m = Match(Setup.from_dict(header()))
    m.apply(ev(0, "bowl_in"))
    assert m.apply(ev(5, "whistle", source=str(WhistleSource.AUDIO)))["source"] == "audio"
    doc["events"][1]["source"] = "audio"
    assert record_replay(doc)["status"] == "stopped"


# ------------------------------------------------------------------ the plan
def _next(events: list[dict[str, Any]], at: float, **options: Any) -> dict[str, Any]:
    r = replay(Setup.from_dict(header(**options)), events, round(at * 1000))
    return {n: p.get("next_mount") for n, p in r["roster"]["A"]["players"].items()}


def test_record_1_3_a_horse_listed_twice_in_a_plan_counts_from_its_first_place() -> None:
    # plan 1: bay, dora, bay, elsa; riding bay: the next is dora (after bay's first place)
    got = _next([*LINE_UP, ev(1, "bowl_in")], 10)
    assert got["1"] == {"mount": "dora", "from": "period 2"}


@pytest.mark.parametrize("foul, status", [
    ({"team": "B", "penalty": "7", "disabled": 2}, "retired"),
    ({"team": "B", "penalty": "7", "disabled": 2, "substitute": 4}, "replaced"),
    ({"team": "A", "player": 2, "penalty": "7", "disabled": 1, "removed": 2}, "removed"),
])
def test_record_1_3_next_mount_is_null_for_a_removed_replaced_or_retired_player(
    foul: dict[str, Any], status: str
) -> None:
    events = [*LINE_UP, ev(1, "bowl_in"), ev(10, "foul", **foul)]
    r = replay(Setup.from_dict(header()), events, 11_000)
    p2 = r["roster"]["A"]["players"]["2"]
    assert p2["status"] == status and p2["next_mount"] is None


# ----------------------------------------------------------- readings decided
def test_rule_5_next_mount_in_the_last_regular_period_names_the_period_that_may_follow() -> None:
    starts = [0.0, 690.0, 1740.0, 2430.0]
    events = [*LINE_UP, *(ev(x, "bowl_in") for x in starts)]
    assert _next(events, starts[3] + 100)["1"] == {"mount": "dora", "from": "period 5"}


def test_rule_17_a_negative_handicap_over_six_periods_rounds_half_up() -> None:
    doc = header(periods="six")
    doc["options"]["handicap"] = True
    doc["teams"]["A"]["players"][0]["handicap"] = -1  # -1 x 6 / 4 = -1.5: -1, not -2
    assert Setup.from_dict(doc).handicap_goals() == {"A": 1, "B": 0}
