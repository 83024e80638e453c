"""The header's quick yes (issue 46: :mod:`chukker.record.header`'s Structs, asked by
``validate_header_doc``) gives the detailed check's answers: the same clean header, the
same set-up, the same refusal (code, path, params), on valid headers and on each mutation
of them; a quick yes only for a header the detailed check returns unchanged."""

from __future__ import annotations

import collections
import copy
import math
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.engine.errors import SetupError
from chukker.record import RecordError, header_and_setup, setup_of
from chukker.record import definitions as d
from chukker.record.header import STRUCTS


class Text(str):
    """A ``str`` subclass: msgspec takes it for a string, the record does not."""


def detailed(doc: Any) -> Any:
    """The detailed check alone (what ``validate_header_doc`` did before its quick yes)."""
    if type(doc) is not dict:
        raise RecordError(code="record_not_an_object")
    return d._object(doc, d.HEADER, "", d._header_special)


def answer(fn: Any, doc: Any) -> tuple[str, Any]:
    """``fn(doc)``'s value as its ``repr`` (which tells ``2`` from ``2.0``, ``True`` from
    ``1``, a tuple from a list, NFC from not), or its refusal."""
    try:
        return "ok", repr(fn(doc))
    except RecordError as e:
        return "refused", (e.code, repr(e.params), str(e))


def setup_answer(clean: Any) -> tuple[str, Any]:
    clean = dict(clean)
    clean.pop("events", None)
    try:
        return "ok", repr(setup_of(clean))
    except (RecordError, SetupError) as e:
        return "refused", (type(e).__name__, getattr(e, "code", None), str(e))


def same_answers(doc: Any) -> None:
    before = copy.deepcopy(doc)
    want = answer(detailed, doc)
    got = answer(d.validate_header_doc, doc)
    assert got == want
    if type(doc) is dict and d.is_clean_header(doc):
        assert want == ("ok", repr(doc)), "a quick yes for a header the check changes"
    if want[0] == "ok":
        assert setup_answer(d.validate_header_doc(doc)) == setup_answer(detailed(doc))
        try:
            via_io = ("ok", repr(header_and_setup(doc)[1]))
        except RecordError as e:
            via_io = ("refused", (type(e).__name__, e.code, str(e)))
        assert via_io == setup_answer(detailed(doc))
    assert repr(doc) == repr(before), "the check changed its input"


def players(n: int, first: int = 1) -> list[dict[str, Any]]:
    return [{"no": k, "name": f"P{k}", "handicap": k % 3} for k in range(first, first + n)]


def header(**over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "chukker-match/1",
        "rules": "uspa-arena-2026",
        "options": {"periods": "regulation", "split_periods": False,
                    "tiebreak": "extra-periods", "shootout_players": "all", "handicap": True,
                    "warning_horn": False, "two_point_line": "center"},
        "teams": {
            "A": {"name": "Blue", "captain": 2, "players": players(3),
                  "alternates": players(2, 4),
                  "mounts": [{"id": "a1", "name": "Horse A1", "owner": "Ann"},
                             {"id": "a2", "name": "Horse A2"}],
                  "plan": {"1": ["a1", "a2"], "2": ["a2"]}},
            "B": {"name": "White", "captain": 1, "players": players(3),
                  "mounts": [{"id": "b1"}]},
        },
        "events": [{"at": 0.0, "type": "bowl_in"}],
        "meta": {"note": "x", "n": 3, "list": [1, 2.5, None, True, {"k": "v"}]},
        "match_info": {"event": "Cup", "venue": "Arena 1", "umpire_1": "U"},
    }
    doc.update(over)
    return doc


CLUB = {"rules": "club", "edition": {"base": "uspa-arena-2026", "name": "Club X",
                                     "warning_at_s": 20}}
VALID = [
    header(),
    header(rules="uspa-arena-2006", meta=None, match_info=None, events=None),
    header(**CLUB),
    header(options={"periods": "six", "tiebreak": "shootout", "shootout_players": "one",
                    "first_defends": {"A": "east", "B": "west"},
                    "practice": {"period_s": 60, "interval_s": 12.5}}),
    header(options=None, format=None),
    {"teams": {"A": {"captain": 1, "players": players(3)},
               "B": {"captain": 3, "players": players(3), "name": None}}},
]


@pytest.mark.parametrize("doc", VALID)
def test_a_valid_header_has_a_quick_yes_and_the_same_answers(doc: dict[str, Any]) -> None:
    assert d.is_clean_header(doc)
    same_answers(doc)


def _nested(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    at: Any = out
    for k in path[:-1]:
        at = at[k]
    at[path[-1]] = value
    return out


MUTATIONS: list[tuple[str, tuple[Any, ...], Any]] = [
    ("a float for a whole number", ("teams", "A", "captain"), 2.0),
    ("a float for a handicap", ("teams", "A", "players", 0, "handicap"), 1.0),
    ("a fraction for a whole number", ("teams", "A", "captain"), 2.5),
    ("a bool for a whole number", ("teams", "A", "players", 0, "no"), True),
    ("a bool for a number", ("options", "practice"), {"period_s": True, "interval_s": 1}),
    ("an int for a bool", ("options", "handicap"), 1),
    ("a string for a number", ("teams", "B", "captain"), "1"),
    ("a name not in NFC", ("teams", "A", "name"), "Jose\u0301"),
    ("a name in NFC but not ASCII", ("teams", "A", "name"), "Jos\u00e9"),
    ("a lone surrogate", ("teams", "A", "players", 1, "name"), "x\ud800"),
    ("a team key not in NFC", ("teams",), {"Ae\u0301": {"captain": 1, "players": players(3)},
                                           "B": {"captain": 1, "players": players(3)}}),
    ("a long name", ("teams", "B", "name"), "x" * 61),
    ("a name of the longest", ("teams", "B", "name"), "x" * 60),
    ("an unknown key in a team", ("teams", "A", "coach"), "x"),
    ("an unknown key in a player", ("teams", "A", "players", 0, "age"), 30),
    ("an unknown key in options", ("options", "colour"), "red"),
    ("an unknown key in a mount", ("teams", "A", "mounts", 0, "colour"), "bay"),
    ("an unknown key in match_info", ("match_info", "weather"), "fine"),
    ("an unknown key at the top", ("colour",), "red"),
    ("a tuple for a list", ("teams", "A", "players"), tuple(players(3))),
    ("a str subclass for an enum", ("rules",), Text("uspa-arena-2026")),
    ("a str subclass for a name", ("teams", "A", "name"), Text("Blue")),
    ("a dict subclass for a team", ("teams", "A"),
     collections.OrderedDict(captain=1, players=players(3))),
    ("a dict subclass for the meta", ("meta",), collections.OrderedDict(a=1)),
    ("an unknown enum value", ("options", "periods"), "seven"),
    ("a null required field", ("teams", "A", "captain"), None),
    ("a null player number", ("teams", "A", "players", 0, "no"), None),
    ("a null optional field", ("teams", "A", "alternates"), None),
    ("a handicap out of range", ("teams", "A", "players", 0, "handicap"), 11),
    ("a huge number", ("teams", "A", "captain"), 10**40),
    ("a nan practice", ("options", "practice"), {"period_s": math.nan, "interval_s": 1}),
    ("an infinite practice", ("options", "practice"), {"period_s": 60, "interval_s": math.inf}),
    ("a practice without its interval", ("options", "practice"), {"period_s": 60}),
    ("first_defends of one team", ("options", "first_defends"), {"A": "east"}),
    ("first_defends with a long key", ("options", "first_defends"),
     {"A" * 65: "east", "B": "west"}),
    ("first_defends at the same end", ("options", "first_defends"), {"A": "east", "B": "east"}),
    ("three teams", ("teams", "C"), {"captain": 1, "players": players(3)}),
    ("a long team key", ("teams",), {"A" * 17: {"captain": 1, "players": players(3)},
                                     "B": {"captain": 1, "players": players(3)}}),
    ("a bad team key", ("teams",), {"a b": {"captain": 1, "players": players(3)},
                                    "B": {"captain": 1, "players": players(3)}}),
    ("thirteen players", ("teams", "A", "players"), players(13)),
    ("two players", ("teams", "A", "players"), players(2)),
    ("a bad mount id", ("teams", "A", "mounts", 0, "id"), "A1"),
    ("a mount id with a newline", ("teams", "A", "mounts", 0, "id"), "a1\n"),
    ("a mount on both teams", ("teams", "B", "mounts"), [{"id": "a1"}]),
    ("a mount listed twice", ("teams", "B", "mounts"), [{"id": "b1"}, {"id": "b1"}]),
    ("a plan naming the other team's mount", ("teams", "A", "plan"), {"1": ["b1"]}),
    ("a plan naming no listed mount", ("teams", "A", "plan"), {"1": ["zz"]}),
    ("a plan keyed by a non-number", ("teams", "A", "plan"), {"x": ["a1"]}),
    ("a plan keyed with a newline", ("teams", "A", "plan"), {"1\n": ["a1"]}),
    ("a plan of a non-string id", ("teams", "A", "plan"), {"1": [3]}),
    ("an empty plan", ("teams", "A", "plan"), {}),
    ("events not a list", ("events",), {"at": 0}),
    ("meta too deep", ("meta",), {"a": {"b": {"c": {"d": {"e": 1}}}}}),
    ("meta at its deepest", ("meta",), {"a": {"b": {"c": {"d": 1}}}}),
    ("meta a string", ("meta",), "a note"),
    ("meta a long string", ("meta", "note"), "x" * 201),
    ("meta not in NFC", ("meta", "note"), "e\u0301"),
    ("meta a key not in NFC", ("meta",), {"e\u0301": 1}),
    ("meta a huge number", ("meta", "n"), 10**16),
    ("meta a nan", ("meta", "n"), math.nan),
    ("meta a tuple", ("meta", "list"), (1, 2)),
    ("an edition without club", ("edition",), {"base": "uspa-arena-2026", "name": "X"}),
    ("a long match_info event", ("match_info", "event"), "x" * 121),
    ("match_info not an object", ("match_info",), ["Cup"]),
    ("a format of another version", ("format",), "chukker-match/2"),
    ("an unknown edition", ("rules",), "fifa"),
    ("a captain not a player", ("teams", "A", "captain"), 7),
    ("an alternate numbered as a player", ("teams", "A", "alternates"), players(1, 3)),
    ("split periods in 2006", ("options", "split_periods"), True),
]


@pytest.mark.parametrize(("clause", "path", "value"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutated_header_has_the_same_answers(clause: str, path: tuple[Any, ...],
                                               value: Any) -> None:
    for base in (header(), header(rules="uspa-arena-2006"), header(**CLUB)):
        same_answers(_nested(base, path, value))


def test_a_club_edition_out_of_its_quick_yes_has_the_same_answers() -> None:
    for ed in ({"base": "uspa-arena-2026", "name": "Caf\u00e9"},
               {"base": "uspa-arena-2026", "name": "X", "warning_at_s": 10**20},
               {"base": "uspa-arena-2026", "name": "X", "regulation": {"count": 4}},
               {"base": "uspa-arena-2026", "name": "X", "colour": "red"},
               [1, 2], None):
        same_answers(header(rules="club", edition=ed))


def test_not_an_object_has_the_same_answer() -> None:
    for doc in (None, [], "x", collections.OrderedDict(teams={})):
        same_answers(doc)


def test_the_structs_have_the_tables_fields() -> None:
    """Each Struct has its table's fields, required where the table requires them."""
    for name, cls in STRUCTS.items():
        table = getattr(d, name)
        fields = {f.encode_name: f.required for f in msgspec.structs.fields(cls)}
        assert fields == {k: f.required for k, f in table.items()}, name


# ---------------------------------------------------------------- generated
NAME = st.one_of(st.text(max_size=6), st.sampled_from(["Blue", "Jos\u00e9", "Jose\u0301"]))
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-3, 100), st.sampled_from(
    [2.0, 1.5, -0.0, 10**30, math.inf, math.nan, "A", "a1", "east", "club", "x" * 61]), NAME)
MUTANT = st.one_of(LEAF, st.lists(LEAF, max_size=3).map(tuple),
                   st.dictionaries(st.text(max_size=3), LEAF, max_size=2),
                   st.lists(LEAF, max_size=3), LEAF.map(lambda v: [v]))


def _spots(v: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``v``'s objects and lists (each may be replaced), and ``+`` a key
    that each object may gain."""
    out: list[tuple[Any, ...]] = []
    if type(v) is dict:
        out.append((*at, "+"))
        for k, x in v.items():
            out.append((*at, k))
            out += _spots(x, (*at, k))
    elif type(v) is list:
        for i, x in enumerate(v):
            out.append((*at, i))
            out += _spots(x, (*at, i))
    return out


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(VALID), st.data())
def test_generated_mutations_have_the_same_answers(base: dict[str, Any], data: Any) -> None:
    doc = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, 2))):
        spots = _spots(doc)
        path = data.draw(st.sampled_from(spots))
        value = data.draw(MUTANT)
        if path[-1] == "+":
            path = (*path[:-1], data.draw(st.sampled_from(
                ["colour", "name", "owner", "handicap", "plan", "meta", "e\u0301"])))
        elif data.draw(st.booleans()) and isinstance(path[-1], str):
            at: Any = doc
            for k in path[:-1]:
                at = at[k]
            del at[path[-1]]
            continue
        doc = _nested(doc, path, value)
    same_answers(doc)


def test_the_set_up_made_from_remembered_players_and_options_is_a_fresh_ones_equal() -> None:
    """Setup.from_dict remembers the players and options it made (values): a set-up made
    with them is equal, field by field, to one made afresh; an int's subclass or a bool
    is never taken for a remembered int."""
    import enum

    from chukker.engine import options as o
    from chukker.engine import setup as s

    class No(enum.IntEnum):
        ONE = 1

    for doc in VALID:
        clean = d.validate_header_doc(doc)
        clean.pop("events", None)
        warm = setup_answer(clean)
        s._PLAYERS.clear()
        o._OPTIONS.clear()
        assert setup_answer(clean) == warm
    doc = header()
    setup_of({k: v for k, v in doc.items() if k != "events"})
    doc["teams"]["A"]["players"][0]["no"] = No.ONE
    got = s.Setup.from_dict({k: v for k, v in doc.items() if k != "events"})
    fresh = s.Player(No.ONE, "P1", 1)  # compiled, the engine keeps a plain int
    assert type(got.teams[0].players[0].no) is type(fresh.no)
    doc["teams"]["A"]["players"][0]["no"] = True
    with pytest.raises(SetupError) as e:
        s.Setup.from_dict({k: v for k, v in doc.items() if k != "events"})
    assert e.value.code == "setup_not_whole"
