"""Plays: line of the ball, right of way, animated diagrams and candidate fouls.

>>> from chukker.plays import detect, load_shipped
>>> [c.to_json()["clause"] for c in detect(load_shipped("13f-two-on-one").tracking())]
['13f']
"""

from chukker.plays.candidates import Candidate, Clause
from chukker.plays.detectors import detect
from chukker.plays.geometry import ARENA, Arena
from chukker.plays.params import DEFAULT_PARAMS, Params, Threshold
from chukker.plays.reference import detect_reference
from chukker.plays.render_png import render_png
from chukker.plays.render_svg import render_svg
from chukker.plays.scenario import Scenario, ScenarioError, Verdict, load, load_shipped, shipped
from chukker.plays.tracking import (
    Event,
    EventKind,
    PlayerId,
    Side,
    Tracking,
    TrackingError,
    read_tracking,
    write_csv,
    write_parquet,
)

__all__ = [
    "ARENA",
    "DEFAULT_PARAMS",
    "Arena",
    "Candidate",
    "Clause",
    "Event",
    "EventKind",
    "Params",
    "PlayerId",
    "Scenario",
    "ScenarioError",
    "Side",
    "Threshold",
    "Tracking",
    "TrackingError",
    "Verdict",
    "detect",
    "detect_reference",
    "load",
    "load_shipped",
    "read_tracking",
    "render_png",
    "render_svg",
    "shipped",
    "write_csv",
    "write_parquet",
]
