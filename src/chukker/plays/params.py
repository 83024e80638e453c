"""Detector thresholds: every number with its unit and its source.

The rulebook gives few numbers: "5 seconds" and "about 2 horse lengths" (13k),
"a foot or two" (13a(3)). Everything else is a chukker schematic choice, said so
in ``source``, and can be changed by passing another :class:`Params`.

>>> p = Params()
>>> p.delay_limit_s.value, p.delay_limit_s.source
(5.0, '13k')
>>> p.mark_distance_yd.value
6.0
>>> p.with_values(gallop_speed_yd_s=9.0).gallop_speed_yd_s.value
9.0
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

SCHEMATIC = "chukker schematic"


@dataclass(frozen=True, slots=True)
class Threshold:
    """A named parameter: value, unit, where the number comes from, and what it means."""

    value: float
    unit: str
    source: str
    note: str = ""


HORSE_LENGTH_YD = 3.0


@dataclass(frozen=True, slots=True)
class Params:
    """All thresholds of the line of the ball, the right of way and the detectors."""

    # kinematics and Rule 11
    moving_speed_yd_s: Threshold = Threshold(
        1.0, "yd/s", SCHEMATIC, "below this a player has no heading"
    )
    ball_moving_speed_yd_s: Threshold = Threshold(
        1.0, "yd/s", SCHEMATIC, "below this the ball is stationary (Rule 11 keeps the last line)"
    )
    line_turn_deg: Threshold = Threshold(
        8.0,
        "deg",
        "Rule 11 (tolerance: " + SCHEMATIC + ")",
        "a change of direction larger than this between frames sets a new line",
    )
    # Rule 12
    row_proximity_yd: Threshold = Threshold(
        20.0, "yd", "Rule 12 (number: " + SCHEMATIC + ")", "players 'in the proximity of the ball'"
    )
    row_min_speed_yd_s: Threshold = Threshold(
        2.0, "yd/s", SCHEMATIC, "a player must be riding to hold the right of way"
    )
    row_max_angle_deg: Threshold = Threshold(
        60.0, "deg", SCHEMATIC, "largest angle between heading and line of the ball for a claim"
    )
    row_lookahead_yd: Threshold = Threshold(
        5.0, "yd", SCHEMATIC, "entitled: smallest offset from the line after riding this far"
    )
    row_front_yd: Threshold = Threshold(
        1.5,
        "yd",
        "13a(3) (number: " + SCHEMATIC + ")",
        "a player less than this far ahead is alongside, not in front",
    )
    row_length_yd: Threshold = Threshold(
        15.0, "yd", SCHEMATIC, "corridor length ahead of the entitled player"
    )
    row_half_width_yd: Threshold = Threshold(
        1.5, "yd", SCHEMATIC, "half the corridor width; the rulebook fixes no width"
    )
    row_clear_s: Threshold = Threshold(
        1.0, "s", "Rule 12 (number: " + SCHEMATIC + ")", "time granted to clear a new right of way"
    )
    row_headway_s: Threshold = Threshold(
        1.0,
        "s",
        "Rule 12 (number: " + SCHEMATIC + ")",
        "entering closer than this many seconds of the holder's travel is unsafe",
    )
    row_min_gap_yd: Threshold = Threshold(
        2 * HORSE_LENGTH_YD,
        "yd",
        SCHEMATIC,
        "entering closer than this is unsafe at any speed (2 horse lengths)",
    )
    row_entry_lateral_speed_yd_s: Threshold = Threshold(
        1.0, "yd/s", SCHEMATIC, "the entering player must be moving across the corridor"
    )
    hook_grace_s: Threshold = Threshold(
        2.0,
        "s",
        "13 examples (fair hook; number: " + SCHEMATIC + ")",
        "after a fair hook the hooked player's corridor is not protected",
    )
    # ride-offs (13, 13a, 13f, 13j)
    contact_yd: Threshold = Threshold(
        1.6, "yd", SCHEMATIC, "centre distance of two mounts in contact"
    )
    contact_gap_s: Threshold = Threshold(
        0.5, "s", SCHEMATIC, "a contact broken for less than this (live ball) is one contact"
    )
    ride_min_speed_yd_s: Threshold = Threshold(
        2.0, "yd/s", SCHEMATIC, "both mounts moving for a ride-off"
    )
    gallop_speed_yd_s: Threshold = Threshold(8.0, "yd/s", SCHEMATIC, "about 16 mph")
    ride_angle_slow_deg: Threshold = Threshold(
        45.0, "deg", "13a(4) (number: " + SCHEMATIC + ")", "steepest safe convergence below gallop"
    )
    ride_angle_fast_deg: Threshold = Threshold(
        30.0, "deg", "13a(4) (number: " + SCHEMATIC + ")", "steepest safe convergence at a gallop"
    )
    ride_speed_diff_yd_s: Threshold = Threshold(
        3.0, "yd/s", "13a(1) (number: " + SCHEMATIC + ")", "speed difference at contact"
    )
    ride_speed_ratio: Threshold = Threshold(
        0.35,
        "ratio",
        "13a(1) (number: " + SCHEMATIC + ")",
        "speed difference over the faster speed",
    )
    # 13b
    zig_front_yd: Threshold = Threshold(
        10.0, "yd", SCHEMATIC, "'in front': ahead of the galloping player up to this far"
    )
    zig_reach_yd: Threshold = Threshold(
        15.0,
        "yd",
        SCHEMATIC,
        "'in front': up to this far either side of his line (a swerve may swing this wide)",
    )
    zig_margin_yd: Threshold = Threshold(
        0.75,
        "yd",
        SCHEMATIC,
        "a side of his line counts once this far from it (GPS noise does not make crossings)",
    )
    zig_lateral_speed_yd_s: Threshold = Threshold(
        1.5, "yd/s", SCHEMATIC, "the crossing player moves across the line at least this fast"
    )
    zig_min_crossings: Threshold = Threshold(
        2.0, "count", SCHEMATIC, "crossing and re-crossing his line"
    )
    zig_window_s: Threshold = Threshold(
        2.0, "s", SCHEMATIC, "consecutive crossings at most this far apart"
    )
    # 13g
    intim_closing_speed_yd_s: Threshold = Threshold(
        5.0, "yd/s", "13g (number: " + SCHEMATIC + ")", "his own speed towards the opponent"
    )
    intim_min_speed_yd_s: Threshold = Threshold(
        6.0, "yd/s", SCHEMATIC, "the charging player rides at least this fast (a canter)"
    )
    intim_target_speed_yd_s: Threshold = Threshold(
        4.0, "yd/s", SCHEMATIC, "the opponent rides at least this fast when the charge starts"
    )
    intim_gain_speed_yd_s: Threshold = Threshold(
        3.0, "yd/s", SCHEMATIC, "the distance between them shrinks at least this fast"
    )
    intim_cross_deg: Threshold = Threshold(
        75.0, "deg", SCHEMATIC, "his heading and the opponent's at least this far apart"
    )
    intim_aim_deg: Threshold = Threshold(
        25.0, "deg", SCHEMATIC, "heading at most this far from the line to the opponent"
    )
    intim_range_yd: Threshold = Threshold(
        10.0, "yd", SCHEMATIC, "the charge is looked at from this distance in"
    )
    intim_near_yd: Threshold = Threshold(
        4.0, "yd", SCHEMATIC, "the charge comes at least this close (but no contact)"
    )
    intim_pull_deg: Threshold = Threshold(
        30.0, "deg", SCHEMATIC, "the opponent pulls out: turns at least this much"
    )
    intim_pull_slow: Threshold = Threshold(
        0.3, "ratio", SCHEMATIC, "or the opponent pulls out: loses this share of his speed"
    )
    intim_window_s: Threshold = Threshold(
        1.5, "s", SCHEMATIC, "the pull-out within this time of the closest approach"
    )
    # 13i
    head_aim_deg: Threshold = Threshold(
        30.0,
        "deg",
        "13i (number: " + SCHEMATIC + ")",
        "at contact, heading at most this far from the line to the opponent (head first)",
    )
    head_window_s: Threshold = Threshold(
        0.4, "s", SCHEMATIC, "heading and closing speed over this time before the contact"
    )
    head_closing_speed_yd_s: Threshold = Threshold(
        3.0, "yd/s", "13i (number: " + SCHEMATIC + ")", "closing speed at contact"
    )
    # 13f, 13j
    two_on_one_min_s: Threshold = Threshold(
        0.4, "s", SCHEMATIC, "both in contact at least this long"
    )
    wall_margin_yd: Threshold = Threshold(
        2.0, "yd", SCHEMATIC, "the ridden player this close to a wall"
    )
    wall_approach_speed_yd_s: Threshold = Threshold(
        1.5, "yd/s", SCHEMATIC, "speed towards the wall"
    )
    wall_min_s: Threshold = Threshold(0.2, "s", SCHEMATIC, "for at least this long")
    # 13k
    possession_yd: Threshold = Threshold(
        3.0, "yd", SCHEMATIC, "ball within mallet reach of the carrier"
    )
    walk_speed_yd_s: Threshold = Threshold(2.2, "yd/s", SCHEMATIC, "about 4.5 mph, a walk")
    walk_window_s: Threshold = Threshold(
        1.0, "s", SCHEMATIC, "the carrier's speed is his mean speed over this time (trailing)"
    )
    mark_distance_yd: Threshold = Threshold(
        2 * HORSE_LENGTH_YD,
        "yd",
        "13k (horse length 3 yd: " + SCHEMATIC + ")",
        "marked at about 2 horse lengths or less",
    )
    delay_limit_s: Threshold = Threshold(5.0, "s", "13k", "time to hit away or run with the ball")
    # 13h
    stroke_max_s: Threshold = Threshold(
        1.0,
        "s",
        "13b(9) interpretation (number: " + SCHEMATIC + ")",
        "a stroke without a following hit ends after this",
    )
    # reporting
    merge_gap_s: Threshold = Threshold(
        1.0, "s", SCHEMATIC, "repeated entries closer than this are one candidate"
    )

    def with_values(self, **values: float) -> Params:
        """A copy with some values changed (units and sources kept)."""
        changes = {k: replace(getattr(self, k), value=float(v)) for k, v in values.items()}
        return replace(self, **changes)

    def table(self) -> list[tuple[str, Threshold]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self)]


DEFAULT_PARAMS = Params()
