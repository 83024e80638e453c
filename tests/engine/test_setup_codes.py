"""Every refusal of the set-up has a stable code and params (the project's rule: a user
sees each refusal in en, es and it), and its English text is the one it always was.

The clause: the record's header (record 1.2: ``format``, ``rules``, ``options``,
``teams``) and Rule 3 (rosters); each case is a header broken in one place, the code
it is refused with and the English ``path: reason`` it has always said.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from chukker.engine import Setup, SetupError
from chukker.engine.errors import MESSAGES, message, setup_sentence


def _team(name: str) -> dict[str, Any]:
    return {"name": name, "captain": 1,
            "players": [{"no": n, "name": f"P{n}", "handicap": 1} for n in (1, 2, 3)]}


BASE: dict[str, Any] = {"format": "chukker-match/1", "rules": "uspa-arena-2026",
                        "options": {}, "teams": {"A": _team("Blue"), "B": _team("White")}}


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return edit


def _drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda doc: doc.pop(key)


#: (the edit, the code, the English text as it has always been)
CASES: list[tuple[Callable[[dict[str, Any]], None], str, str]] = [
    (_set("format", "x"), "setup_format",
     "format: unsupported format 'x' (expected 'chukker-match/1')"),
    (_set("rules", 5), "setup_not_a_string", "rules: must be a string"),
    (_set("rules", "nope"), "setup_unknown_edition",
     "rules: unknown edition 'nope' (known: uspa-arena-2026, uspa-arena-2006)"),
    (_drop("teams"), "setup_teams_missing", "teams: missing: a record has exactly two teams"),
    (lambda d: d["teams"].pop("B"), "setup_teams_count",
     "teams: a match has exactly two teams, got 1"),
    (_set("teams.A", "x"), "setup_team_not_an_object",
     "teams.A: must be an object with name, captain and players"),
    (_set("teams.A.name", 5), "setup_not_a_string", "teams.A.name: must be a string"),
    (_set("teams.A.players.0", 5), "setup_player_not_an_object",
     "teams.A.players[0]: must be an object with no, name and handicap"),
    (_set("teams.A.players.0.no", "1"), "setup_not_whole",
     "teams.A.players[0].no: must be a whole number, got '1'"),
    (_set("teams.A.players.0.name", 5), "setup_not_a_string",
     "teams.A.players[0].name: must be a string"),
    (_set("teams.A.players.0.handicap", 1.5), "setup_not_whole",
     "teams.A.players[0].handicap: must be a whole number, got 1.5"),
    (_set("teams.A.captain", "1"), "setup_not_whole",
     "teams.A.captain: must be a whole number, got '1'"),
    (_set("teams.A.alternates", "x"), "setup_alternates_list",
     "teams.A.alternates: must be a list of at most 12 players"),
    (_set("teams.A.alternates", [{"no": 4}] * 13), "setup_alternates_list",
     "teams.A.alternates: must be a list of at most 12 players"),
    (_set("teams.A.alternates", [5]), "setup_player_not_an_object",
     "teams.A.alternates[0]: must be an object with no, name and handicap"),
    (_set("teams.A.alternates", [{"no": 4, "name": 5}]), "setup_not_a_string",
     "teams.A.alternates[0].name: must be a string"),
    (_set("teams.A.mounts", "x"), "setup_mounts_list",
     "teams.A.mounts: must be a list of at most 64 mounts"),
    (_set("teams.A.mounts", [5]), "setup_mount_not_an_object",
     "teams.A.mounts[0]: must be an object with id, name and owner"),
    (_set("teams.A.mounts", [{"id": "m1", "name": 5}]), "setup_not_a_string",
     "teams.A.mounts[0].name: must be a string"),
    (_set("teams.A.mounts", [{"id": "m1", "owner": 5}]), "setup_not_a_string",
     "teams.A.mounts[0].owner: must be a string"),
    (_set("options", []), "setup_not_an_object", "options: must be an object"),
    (_set("options", {"tiebreak": "coin"}), "setup_unknown_value",
     "options.tiebreak: unknown value 'coin' (one of 'extra-periods', 'shootout')"),
    (_set("options", {"handicap": "yes"}), "setup_not_bool",
     "options.handicap: must be true or false, got 'yes'"),
    (_set("options", {"first_defends": {"A": "west"}}), "setup_first_defends",
     "options.first_defends: must give the end of both teams, e.g. {'A': 'west', 'B': 'east'}"),
    (_set("options", {"first_defends": {"A": "up", "B": "east"}}), "setup_unknown_value",
     "options.first_defends.A: unknown value 'up' (one of 'west', 'east')"),
    (_set("options", {"practice": 5}), "setup_practice_shape",
     'options.practice: must be {"period_s": N, "interval_s": M}'),
    (_set("options", {"practice": {"period_s": 5, "interval_s": 1}}), "setup_practice_range",
     "options.practice.period_s: must be a number of seconds from 10 to 3600"),
    (_set("options", {"practice": {"period_s": 10.0001, "interval_s": 1}}),
     "setup_practice_precision", "options.practice.period_s: at most millisecond precision"),
]


def refused(edit: Callable[[dict[str, Any]], None]) -> SetupError:
    doc = copy.deepcopy(BASE)
    edit(doc)
    with pytest.raises(SetupError) as e:
        Setup.from_dict(doc)
    return e.value


@pytest.mark.parametrize(("edit", "code", "text"), CASES, ids=[c[2][:60] for c in CASES])
def test_record_header_each_setup_refusal_has_its_code_and_its_english_unchanged(
    edit: Callable[[dict[str, Any]], None], code: str, text: str,
) -> None:
    e = refused(edit)
    assert (e.code, str(e)) == (code, text)
    assert f"{e.path}: {e.reason}" == text
    assert e.params["path"] == e.path
    # the code's template, filled from the params alone, says the same English
    assert message(e.code, e.params) == text
    assert setup_sentence(e.code, e.params) == text


def test_record_header_a_header_that_is_not_an_object_has_its_code() -> None:
    with pytest.raises(SetupError) as e:
        Setup.from_dict([])  # type: ignore[arg-type]
    assert (e.value.code, str(e.value)) == ("setup_not_an_object", "record: must be an object")


def test_record_header_a_quoted_value_is_shown_short_in_the_params() -> None:
    e = refused(_set("options", {"tiebreak": "c" * 500}))
    assert e.code == "setup_unknown_value"
    assert len(e.params["value"]) == 60 and e.params["value"].endswith("...")
    assert e.params["allowed"] == ["'extra-periods'", "'shootout'"]


def test_record_header_the_setup_no_longer_refuses_with_the_generic_code() -> None:
    """``setup_invalid`` stays, the fallback for a refusal without a code of its own."""
    codes = {refused(edit).code for edit, _, _ in CASES}
    assert "setup_invalid" not in codes
    assert codes <= set(MESSAGES)
    assert SetupError("x", "why").params == {"path": "x", "detail": "why"}
    assert setup_sentence("setup_invalid", {"path": "x", "detail": "why"}) is None
