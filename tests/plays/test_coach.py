"""For coaches: distance, time at a gallop and heat maps per player and period."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from chukker.plays import Tracking
from chukker.plays.coach import heat_svg, periods
from chukker.plays.tracking import PlayerId


def _rider(seconds: float, speed: float) -> Tracking:
    t = np.arange(0, seconds + 1e-9, 0.04)
    pos = np.zeros((t.size, 1, 2))
    pos[:, 0, 0] = 5 + speed * t  # the heat map keeps a rider past the wall in its last cell
    pos[:, 0, 1] = 25.0
    return Tracking(t, (PlayerId("blue", 1),), pos, None)


def test_plays_coach_distance_gallop_and_periods() -> None:
    tr = _rider(20.0, 10.0)
    ps = periods(tr, period_s=8.0)
    assert [(p.number, p.start, p.end) for p in ps] == [(1, 0.0, 8.0), (2, 8.0, 16.0),
                                                        (3, 16.0, pytest.approx(20.0))]  # fmt: skip
    s = ps[2].stats[0]
    assert s.distance_yd == pytest.approx(40.0, abs=0.5)
    assert s.gallop_s == pytest.approx(4.0, abs=0.05)  # 10 yd/s is a gallop (8 yd/s or more)
    assert float(s.heat.sum()) == pytest.approx(4.0, abs=0.05)
    assert s.heat.shape == (10, 20)


def test_plays_coach_heat_map_is_an_svg_of_the_arena() -> None:
    s = periods(_rider(10.0, 3.0))[0].stats[0]
    assert s.gallop_s == 0.0
    root = ET.fromstring(heat_svg(s, "Blue 1"))
    cells = [
        r
        for r in root.iter("{http://www.w3.org/2000/svg}rect")
        if r.find("{http://www.w3.org/2000/svg}title") is not None
    ]
    assert len(cells) == 7  # 30 yards at y = 25: six cells of 5 yd and the one it ends in
