"""The compiled engine and the pure-Python one give the same answers (issue 20, item 4).

``pip install`` compiles the fold with mypyc where it can (``setup.py``);
``chukker.engine.native`` runs it only when it was built from the sources beside it,
and ``CHUKKER_PURE_PYTHON=1`` asks for the source. Generated matches (legal ones, and
ones with fields changed, undos and refusals) are replayed in this process and in a
pure-Python one; every report and every refusal must be equal.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.engine import NATIVE, EngineError, check, replay
from chukker.engine import native as native_mod
from chukker.engine.simulate import default_setup, simulate

OPTIONS = [
    {},
    {"split_periods": True, "warning_horn": True},
    {"tiebreak": "shootout"},
    {"periods": "six", "tiebreak": "shootout", "shootout_players": "one"},
]

RUN = r"""
import json, sys
from chukker.engine import NATIVE, EngineError, check, replay
from chukker.engine.simulate import default_setup
out = []
for job in json.load(sys.stdin):
    s = default_setup(**job["options"])
    try:
        r = replay(s, job["events"], job["at"])
    except EngineError as e:
        r = {"refused": [e.index, e.code, e.params]}
    out.append([r, [[p.index, p.code, p.params] for p in check(s, job["events"])]])
print(json.dumps({"native": NATIVE, "out": out}, sort_keys=True, default=str))
"""


def _answers(jobs: list[dict[str, Any]]) -> list[Any]:
    out = []
    for job in jobs:
        s = default_setup(**job["options"])
        try:
            r: Any = replay(s, job["events"], job["at"])
        except EngineError as e:
            r = {"refused": [e.index, e.code, e.params]}
        out.append([r, [[p.index, p.code, p.params] for p in check(s, job["events"])]])
    return json.loads(json.dumps(out, sort_keys=True, default=str))  # type: ignore[no-any-return]


def _pure(jobs: list[dict[str, Any]]) -> dict[str, Any]:
    env = dict(os.environ, CHUKKER_PURE_PYTHON="1")
    proc = subprocess.run(
        [sys.executable, "-c", RUN],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _jobs(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    jobs = []
    for k in range(n):
        options = OPTIONS[k % len(OPTIONS)]
        events: list[Any] = simulate(default_setup(**options), rng, rng.randint(0, 350))
        for _ in range(rng.choice((0, 0, 1, 2))):  # a changed field, an undo, a wrong type
            if not events:
                break
            j = rng.randrange(len(events))
            events[j] = dict(events[j])
            pick = rng.random()
            if pick < 0.3:
                undo = {"at": events[j]["at"], "type": "undo", "event": rng.randint(1, j + 1)}
                events.insert(j, undo)
            elif pick < 0.6:
                events[j]["team"] = rng.choice(["A", "B", "C", None])
            elif pick < 0.8:
                events[j]["penalty"] = rng.choice(["1", "2", "5", "6", "7", "9", 3])
            else:
                events[j]["type"] = rng.choice(["goal", "foul", "bowl_in", "shot", "clock"])
        at = None
        if events and rng.random() < 0.4:
            at = round(events[-1]["at"] * 1000 * rng.random())
        jobs.append({"options": options, "events": events, "at": at})
    return jobs


def test_native_choice_honours_chukker_pure_python() -> None:
    env = dict(os.environ, CHUKKER_PURE_PYTHON="1")
    code = "import chukker.engine as e, chukker.engine.fold as f; print(e.NATIVE, f.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    assert out[0] == "False" and out[1].endswith("fold.py")


def test_native_is_used_only_when_built_from_the_sources_beside_it() -> None:
    import chukker.engine.fold as fold

    if NATIVE:
        assert native_mod._fresh()
        assert not fold.__file__.endswith(".py")  # type: ignore[union-attr]
    else:
        assert fold.__file__.endswith(".py")  # type: ignore[union-attr]
    assert set(native_mod.source_hashes()) == set(native_mod.MODULES)


@pytest.mark.skipif(not NATIVE, reason="no compiled engine in this install (pure Python only)")
@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32))
def test_native_and_pure_engines_give_equal_reports(seed: int) -> None:
    jobs = _jobs(seed, 40)
    pure = _pure(jobs)
    assert pure["native"] is False
    assert pure["out"] == _answers(jobs)


def test_native_differential_harness_runs_in_pure_mode_too() -> None:
    # the harness itself (without a compiled engine both sides are the source)
    jobs = _jobs(3, 12)
    pure = _pure(jobs)
    assert pure["native"] is False
    assert pure["out"] == _answers(jobs)


def test_native_setup_compiles_exactly_the_modules_the_engine_loads() -> None:
    """setup.py cannot import the package it builds: its list is kept equal by this test
    (a module missing there leaves the whole engine pure, since all or none are used)."""
    import ast
    from pathlib import Path

    from chukker.engine.native import MODULES

    tree = ast.parse((Path(__file__).resolve().parents[2] / "setup.py").read_text())
    listed = next(
        ast.literal_eval(node.value) for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(getattr(t, "id", None) == "MODULES"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
    )
    assert tuple(listed) == MODULES
