"""Geometry invariance and vectorised-versus-reference equality on generated plays.

The walls are part of the geometry (13j), so the transformations that keep the
arena onto itself are the meaningful ones: a rotation by 180 degrees about the
centre (each team then defends the other end) and a mirror across the long axis.
A translation moves the walls relative to the play, so it is tested on plays kept
at least 10 yards from every wall.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.plays import ARENA, Candidate, detect, detect_reference
from chukker.plays.geometry import Transform
from chukker.plays.synthetic import generated_play, transformed

MODES = st.sampled_from(["melee", "gallop", "slow"])


def same(a: list[Candidate], b: list[Candidate], tol: float = 1e-6) -> None:
    assert [(c.clause, c.team, c.player, c.start, c.end) for c in a] == [
        (c.clause, c.team, c.player, c.start, c.end) for c in b
    ]
    for x, y in zip(a, b, strict=True):
        assert x.evidence.keys() == y.evidence.keys()
        for k, v in x.evidence.items():
            w = y.evidence[k]
            if isinstance(v, float) and isinstance(w, float):
                assert math.isclose(v, w, rel_tol=tol, abs_tol=tol), (k, v, w)
            else:
                assert v == w, (k, v, w)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), mode=MODES, near_walls=st.booleans())
def test_rule_1_rotation_180_gives_same_candidates(seed: int, mode: str, near_walls: bool) -> None:
    region = (0.0, 0.0, 100.0, 50.0) if near_walls else (30.0, 15.0, 70.0, 35.0)
    tr = generated_play(seed, seconds=8.0, region=region, mode=mode)
    same(detect(tr), detect(transformed(tr, Transform.rotate180(ARENA))))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), mode=MODES, near_walls=st.booleans())
def test_rule_1_mirror_long_axis_gives_same_candidates(
    seed: int, mode: str, near_walls: bool
) -> None:
    region = (0.0, 0.0, 100.0, 50.0) if near_walls else (30.0, 15.0, 70.0, 35.0)
    tr = generated_play(seed, seconds=8.0, region=region, mode=mode)
    same(detect(tr), detect(transformed(tr, Transform.mirror_long_axis(ARENA))))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    mode=MODES,
    dx=st.integers(-18, 18),
    dy=st.integers(-4, 4),
)
def test_translation_away_from_walls_gives_same_candidates(
    seed: int, mode: str, dx: int, dy: int
) -> None:
    # play within x 30..70, y 15..35, moved at most 18 x 4 yards: always >= 10 yd from a wall
    tr = generated_play(seed, seconds=8.0, region=(30.0, 15.0, 70.0, 35.0), mode=mode)
    tr = tr.with_defends(())  # own half (13k) depends on the centre line, not on distances
    same(detect(tr), detect(transformed(tr, Transform.translate(float(dx), float(dy)))))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    mode=MODES,
    region=st.sampled_from(
        [(30.0, 15.0, 70.0, 35.0), (0.0, 0.0, 100.0, 50.0), (0.0, 0.0, 20.0, 12.0)]
    ),
)
def test_vectorised_equals_reference(seed: int, mode: str, region: tuple[float, ...]) -> None:
    tr = generated_play(
        seed, seconds=6.0, region=(region[0], region[1], region[2], region[3]), mode=mode
    )
    same(detect(tr), detect_reference(tr), tol=1e-9)


@settings(max_examples=4, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_vectorised_equals_reference_on_a_generated_match(seed: int) -> None:
    # the benchmark's play: the whole arena, the ball hit about, players following it
    tr = generated_play(seed, seconds=60.0, region=(0.0, 0.0, 100.0, 50.0), mode="match")
    same(detect(tr), detect_reference(tr), tol=1e-9)


def test_generated_plays_exercise_every_detector() -> None:
    seen = set()
    for seed in range(12):
        for mode in ("melee", "gallop", "slow"):
            for region in ((0.0, 0.0, 100.0, 50.0), (0.0, 0.0, 20.0, 12.0)):
                tr = generated_play(seed, seconds=8.0, region=region, mode=mode)
                a = detect(tr)
                same(a, detect_reference(tr), tol=1e-9)
                seen.update(str(c.clause) for c in a)
    assert seen >= {"12", "13a", "13b", "13d", "13f", "13h", "13j", "13k"}
