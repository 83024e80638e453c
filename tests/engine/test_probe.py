"""``allowed`` probes each action on one scratch copy: a probing state's handler returns
at its first change (``State.accept``), accepted, and a refused probe changes nothing.

The property test of ``allowed`` (``test_properties_1_1``) checks the answers against the
real check of each probe; this one checks that the copy the probes share stays the state
it was copied from, field by field (the pure engine's classes have a ``__dict__``; the
compiled ones are held to the same answers by ``test_native``).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.generated_matches import OPTIONS, with_alternates

from chukker.engine import Match, Setup
from chukker.engine.allowed import ACTIONS, allowed_now, probe
from chukker.engine.core import CODES, handle
from chukker.engine.simulate import simulate, with_mounts
from chukker.engine.state import Refused

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def _setup_and_events(options: dict[str, Any], seed: int, mounts: bool) -> tuple[Setup, Any]:
    setup = with_alternates(**options)
    events = simulate(setup, random.Random(seed), 400)
    if mounts:
        setup, events = with_mounts(setup, events)
    return setup, events


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.floats(0, 1), st.floats(0, 700), st.booleans())
def test_allowed_a_probe_stops_at_its_first_change_and_a_refusal_changes_nothing(
    options: dict[str, Any], seed: int, cut: float, later: float, mounts: bool
) -> None:
    setup, events = _setup_and_events(options, seed, mounts)
    m = Match(setup, events[: int(cut * len(events))])
    start = events[len(m) - 1]["at"] if len(m) else 0.0
    at_ms = round((start + later) * 1000)
    core = m.state_at(at_ms)
    if not hasattr(core, "__dict__"):
        return  # compiled: no __dict__ to compare (the test below runs this one pure)
    if core.final:
        return  # allowed answers a final match without probing
    before = vars(core.copy())
    scratch = core.copy()
    scratch.probing = True
    for action in ACTIONS:
        ev = probe(core, len(m), action, at_ms)
        if ev is None or action == "undo":
            continue
        try:
            handle(scratch, CODES[str(action)], ev, at_ms, len(m) + 1)
        except Refused:
            pass
        else:
            if not scratch.probed:
                scratch = core.copy()  # ran to its end: accepted, its copy may have changed
                scratch.probing = True
                continue
        state = vars(scratch)
        assert state.keys() == before.keys()
        changed = [k for k in before if k not in ("probing", "probed") and state[k] != before[k]]
        assert changed == [], (action, ev, changed)
        scratch.probed = False


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.floats(0, 1), st.floats(0, 700))
def test_allowed_with_a_string_of_mounts_lists_exactly_the_probes_accepted(
    options: dict[str, Any], seed: int, cut: float, later: float
) -> None:
    setup, events = _setup_and_events(options, seed, mounts=True)
    m = Match(setup, events[: int(cut * len(events))])
    start = events[len(m) - 1]["at"] if len(m) else 0.0
    at_ms = round((start + later) * 1000)
    allowed = m.report(at_ms)["allowed"]
    for action in ACTIONS:
        ev = m.probe(action, at_ms)
        assert (ev is not None and m.can(ev)) == (action in allowed), (action, ev, allowed)


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.floats(0, 1), st.floats(0, 700), st.booleans())
def test_allowed_on_its_own_copy_no_probe_of_a_settled_state_runs_to_its_end(
    options: dict[str, Any], seed: int, cut: float, later: float, mounts: bool
) -> None:
    """The report's ``allowed`` probes the copy its caller made (``own``): that holds only
    if every canonical probe of a settled state (no deadline due) is refused before any
    change or returns at ``accept``. The same answers as on a scratch copy, and the
    state's report unchanged by the probes."""
    setup, events = _setup_and_events(options, seed, mounts)
    m = Match(setup, events[: int(cut * len(events))])
    start = events[len(m) - 1]["at"] if len(m) else 0.0
    at_ms = round((start + later) * 1000)
    core = m.state_at(at_ms)
    assert at_ms < core.deadline  # what state_at leaves: every deadline up to at_ms fired
    if not core.final:
        for action in ACTIONS:
            ev = probe(core, len(m), action, at_ms)
            if ev is None or action == "undo":
                continue
            scratch = core.copy()
            scratch.probing = True
            try:
                handle(scratch, CODES[str(action)], ev, at_ms, len(m) + 1)
            except Refused:
                continue
            assert scratch.probed, (action, ev)
    before = core.report(at_ms)
    shared = allowed_now(core, len(m), at_ms, True)
    assert allowed_now(core, len(m), at_ms, True, own=True) == shared
    assert (core.probing, core.probed) == (False, False)
    assert core.report(at_ms) == before


def test_allowed_probes_are_checked_field_by_field_on_the_pure_engine_too() -> None:
    """With the compiled engine installed, the field-by-field test runs in a pure process."""
    from chukker.engine import NATIVE

    if not NATIVE:
        pytest.skip("the pure engine runs here: the test above checked it")
    name = "test_allowed_a_probe_stops_at_its_first_change_and_a_refusal_changes_nothing"
    env = {**os.environ, "CHUKKER_PURE_PYTHON": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         f"{__file__}::{name}"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
