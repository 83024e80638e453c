"""The replay's fast paths give the same answers as the plain ones (issue 20, item 4).

* ``Fold.feed`` applies the common event in one loop and does not recompute the next
  deadline after each event (the clock's primitives do): it must agree with
  ``Fold.apply`` event by event, refusals included, and the deadline must be what a
  fresh ``reschedule`` says after every event.
* The record's quick yes is the event types' Structs (``chukker.record.events``, issue
  46): an event they accept is one the detailed check returns unchanged.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.engine import EngineError
from chukker.engine.fold import Fold
from chukker.engine.match import _report
from chukker.engine.simulate import default_setup, simulate
from chukker.engine.state import INF
from chukker.record import RecordError
from chukker.record.definitions import first_unclean, is_clean_event, validate_event

OPTIONS = st.sampled_from(
    [
        {},
        {"split_periods": True, "warning_horn": True},
        {"tiebreak": "shootout"},
        {"periods": "six", "tiebreak": "shootout", "shootout_players": "one"},
        {"tiebreak": "shootout", "split_periods": True, "warning_horn": True},
    ]
)
NOISE = st.one_of(
    st.none(),
    st.integers(-2, 12),
    st.floats(-1, 4000),
    st.sampled_from(["A", "B", "C", "3", "5", "9", "injury", "undo", "goal", "bowl_in"]),
)
FIELDS = st.sampled_from(["type", "at", "team", "player", "penalty", "reason", "event", "spot"])


def _mutated(events: list[dict[str, Any]], rng: random.Random, edits: list[Any]) -> list[Any]:
    """A legal match with a few fields changed, events moved or undone: refusals, undos
    and uncommon times reach the fast loop."""
    out: list[Any] = [dict(e) for e in events]
    for pos, field, value in edits:
        if not out:
            break
        k = int(pos * len(out)) % len(out)
        if field == "event":  # an undo of an earlier event
            out.insert(k, {"at": out[k]["at"], "type": "undo", "event": rng.randint(1, k + 1)})
        else:
            out[k][field] = value
    return out


def _both(setup: Any, events: list[Any]) -> tuple[Any, Any]:
    fast = Fold(setup)
    try:
        fast.feed(events)
        a: Any = _report(fast, fast.core, fast.core.last_at)
    except EngineError as e:
        a = (e.index, e.code, e.params)
    slow = Fold(setup)
    try:
        for ev in events:
            slow.apply(ev)
            deadline = slow.core.deadline
            slow.core.reschedule()
            assert slow.core.deadline == deadline  # the primitives kept it up to date
        b: Any = _report(slow, slow.core, slow.core.last_at)
    except EngineError as e:
        b = (e.index, e.code, e.params)
    return a, b


@settings(max_examples=120, deadline=None)
@given(
    OPTIONS,
    st.integers(0, 2**32),
    st.lists(st.tuples(st.floats(0, 1), FIELDS, NOISE), max_size=3),
)
def test_replay_fast_loop_gives_the_answers_of_apply_event_by_event(
    options: dict[str, Any], seed: int, edits: list[Any]
) -> None:
    setup = default_setup(**options)
    rng = random.Random(seed)
    events = _mutated(simulate(setup, rng, rng.randint(0, 400)), rng, edits)
    fast, slow = _both(setup, events)
    assert json.dumps(fast, sort_keys=True, default=str) == json.dumps(
        slow, sort_keys=True, default=str
    )


@settings(max_examples=60, deadline=None)
@given(OPTIONS, st.integers(0, 2**32))
def test_replay_deadline_after_every_event_is_a_fresh_reschedule(
    options: dict[str, Any], seed: int
) -> None:
    setup = default_setup(**options)
    events = simulate(setup, random.Random(seed), 300)
    fold = Fold(setup)
    for ev in events:
        fold.feed([ev])
        have = fold.core.deadline
        fold.core.reschedule()
        assert fold.core.deadline == have
    c = fold.core.copy()
    c.advance(INF)
    assert c.deadline == INF


VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=70),
    st.sampled_from(["A", "B", "3", "5a", "goal", "miss", "caf\u00e9", "x" * 17, "x" * 61]),
    st.lists(st.one_of(st.integers(-5, 120), st.floats(-5, 120), st.booleans()), max_size=3),
    st.dictionaries(st.sampled_from(["A", "B"]), st.lists(st.integers(0, 4), max_size=3)),
)
KEYS = st.sampled_from(
    ["at", "team", "player", "penalty", "reason", "order", "first", "remaining", "event",
     "spot", "clause", "card", "in", "out", "two_point", "result", "reached_end_wall",
     "disabled", "removed", "substitute", "equipment", "mount", "for_periods", "bogus"]
)
TYPE = st.sampled_from(
    ["bowl_in", "whistle", "goal", "foul", "free_hit", "timeout", "forfeit", "shootout_order",
     "shot", "move_to_15", "undo", "substitute", "designate", "return", "clock", "nonsense"]
)


def _unchanged(ev: Any) -> bool:
    """Whether the detailed check accepts ``ev`` and returns it as it is (types too)."""
    try:
        out = validate_event(ev, require_at=True)
    except RecordError:
        return False
    return json.dumps(out) == json.dumps(ev)


@settings(max_examples=600, deadline=None)
@given(TYPE, st.dictionaries(KEYS, VALUE, max_size=6))
def test_record_quick_yes_accepts_only_what_the_full_check_keeps(typ: str, fields: Any) -> None:
    ev = {"type": typ, **fields}
    clean = is_clean_event(ev)
    assert not clean or _unchanged(ev)
    assert first_unclean([ev]) == (1 if clean else 0)
    assert first_unclean([{"at": 0, "type": "bowl_in"}, ev]) == (2 if clean else 1)


def test_record_quick_yes_of_every_simulated_event() -> None:
    setup = default_setup(tiebreak="shootout", split_periods=True, warning_horn=True)
    events = simulate(setup, random.Random(11), 600)
    assert all(is_clean_event(e) and _unchanged(e) for e in events)
    assert first_unclean(events) == len(events)
    assert first_unclean([*events, {"at": 1, "type": "goal"}]) == len(events)


def test_replay_dispatch_by_code_calls_the_handler_the_table_names() -> None:
    """``core.handle`` (the loop's and ``allowed``'s native dispatch) calls, for each
    type's code, the very method :data:`HANDLERS` holds for that type."""
    import ast
    from pathlib import Path

    from chukker.engine import core as core_mod

    source = Path(core_mod.__file__).parent / "core.py"  # the compiled module too
    tree = ast.parse(source.read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "handle")
    called: dict[int, str] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            (code,) = node.test.comparators
            assert isinstance(code, ast.Constant)
            (stmt,) = node.body
            assert isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
            func = stmt.value.func
            assert isinstance(func, ast.Attribute)
            called[code.value] = func.attr
    assert called == {k: f"on_{typ}" for typ, k in core_mod.CODES.items()}
    for typ, handler in core_mod.HANDLERS.items():
        assert handler is getattr(core_mod.Core, f"on_{typ}")
