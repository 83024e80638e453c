"""Metamorphic tests: the same play as a GPS session gives the same candidates.

Each shipped play is logged by synthetic GPS units (``fixes_from_tracking``) and
read back through the GPS path (projection, dropout filling, low-pass filter,
common clock). The candidates of the detectors that run on GPS sessions must be
the same as on the clean play: clause, team, player, and start within 0.5 s.

The variants: 0.5 m RMS horizontal noise; 10 Hz instead of 25 Hz; 5 % of the
fixes lost; one unit's fixes falling 200 ms later than the others'; all at once.
Seeded, so every run checks the same plays.
"""

from __future__ import annotations

import pytest

from chukker.plays import Candidate, detect, shipped
from chukker.plays.gps import NOT_RUN_ON_GPS, session_from_fixes
from chukker.plays.gps_sessions import Degrade, example_projection, fixes_from_tracking, unit_names

PROJ = example_projection()
SCENARIOS = {s.id: s for s in shipped()}
#: the clause each play shows (and so the detector its variants exercise)
PLAYS = {
    "12-row-cross": "12",
    "13b-zigzag": "13b",
    "13b-wide-zigzag": "13b",
    "13f-two-on-one": "13f",
    "13g-ride-at-striker": "13g",
    "13i-head-into-opponent": "13i",
    "13k-delay-of-game": "13k",
    "13-fair-shoulder-ride-off": "none",
    "13-fair-hook-then-ride-off": "none",
}


def _variants(first_unit: str) -> dict[str, Degrade]:
    late = ((first_unit, 0.2),)
    return {
        "noise": Degrade(rate_hz=25.0, noise_m=0.5, drop=0.0),
        "10hz": Degrade(rate_hz=10.0, noise_m=0.0, drop=0.0),
        "drop": Degrade(rate_hz=25.0, noise_m=0.0, drop=0.05),
        "offset": Degrade(rate_hz=25.0, noise_m=0.0, drop=0.0, offsets_s=late),
        "all": Degrade(rate_hz=10.0, noise_m=0.5, drop=0.05, offsets_s=late),
    }


def _key(cands: list[Candidate]) -> list[tuple[str, str, int, float]]:
    return sorted(
        (str(c.clause), c.team, c.player, c.start)
        for c in cands
        if str(c.clause) not in NOT_RUN_ON_GPS
    )


@pytest.mark.parametrize("variant", ["noise", "10hz", "drop", "offset", "all"])
@pytest.mark.parametrize("sid", sorted(PLAYS))
def test_rule_13_gps_variants_give_the_same_candidates(sid: str, variant: str) -> None:
    s = SCENARIOS[sid]
    tr = s.tracking()
    units = unit_names(tr)
    deg = _variants(next(iter(units)))[variant]
    want = _key(detect(tr))
    if PLAYS[sid] != "none":
        assert PLAYS[sid] in {k[0] for k in want}
    for seed in (1, 2):
        t, u, lat, lon = fixes_from_tracking(tr, PROJ, units, deg, seed)
        ball = (tr.t, tr.ball) if tr.ball is not None else None
        ses = session_from_fixes(
            t, u, lat, lon, units, PROJ, ball=ball, events=tr.events, defends=tr.defends
        )
        got = _key(detect(ses.tracking))
        assert [k[:3] for k in got] == [k[:3] for k in want], (seed, got, want)
        for g, w in zip(got, want, strict=True):
            assert abs(g[3] - w[3]) <= 0.5, (seed, g, w)


@pytest.mark.parametrize("rate", [10.0, 18.0, 50.0])
def test_rule_13_every_detector_gives_the_same_candidates_at_any_rate(rate: float) -> None:
    """Tracking at 10, 18 or 50 Hz instead of 25 Hz: every detector (13a and 13h too)."""
    for s in SCENARIOS.values():
        want = [(str(c.clause), c.who, c.start) for c in detect(s.tracking())]
        got = [(str(c.clause), c.who, c.start) for c in detect(s.tracking(rate=rate))]
        assert [g[:2] for g in got] == [w[:2] for w in want], (s.id, got, want)
        assert all(abs(g[2] - w[2]) <= 0.5 for g, w in zip(got, want, strict=True)), s.id
