"""Arena (Rule 1), line of the ball (Rule 11), right of way (Rule 12), tracking files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from chukker.plays import (
    Clause,
    Event,
    EventKind,
    PlayerId,
    Tracking,
    TrackingError,
    detect,
    detect_reference,
    load_shipped,
    read_tracking,
    write_csv,
    write_parquet,
)
from chukker.plays.frames import frames
from chukker.plays.geometry import Arena


def test_rule_1_arena_from_edition() -> None:
    a = Arena.from_edition("uspa-arena-2026")
    assert (a.length, a.width) == (100.0, 50.0)
    assert a.goal_y[1] - a.goal_y[0] == pytest.approx(10 / 3)  # 10 ft
    assert a.lines == (15.0, 25.0, 50.0, 75.0, 85.0)


def _straight(
    ball: list[tuple[float, float]], n: int = 50, events: tuple[Event, ...] = ()
) -> Tracking:
    t = np.arange(n) / 25.0
    kt = np.linspace(0, t[-1], len(ball))
    b = np.stack(
        [np.interp(t, kt, [p[0] for p in ball]), np.interp(t, kt, [p[1] for p in ball])], 1
    )
    pos = np.stack([b + np.array([-2.0, 0.0]), b + np.array([0.0, 10.0])], axis=1)
    return Tracking(t, (PlayerId("blue", 1), PlayerId("white", 1)), pos, b, events)


def test_rule_11_new_line_when_the_ball_changes_direction() -> None:
    fr = frames(_straight([(40, 25), (50, 25), (50, 35)], n=51))
    ids = sorted(set(fr.line_id.tolist()))
    assert len(ids) == 2
    assert fr.line_dir[10].tolist() == pytest.approx([1.0, 0.0])
    assert fr.line_dir[-1].tolist() == pytest.approx([0.0, 1.0])


def test_kinematics_backward_difference_first_frame_copies_second() -> None:
    tr = load_shipped("13b-zigzag").tracking()
    fr = frames(tr)
    v = (tr.pos[1:] - tr.pos[:-1]) / np.diff(tr.t)[:, None, None]
    assert np.array_equal(fr.vel[1:], v) and np.array_equal(fr.vel[0], v[0])
    s = np.sqrt(v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1])
    assert np.array_equal(fr.speed[1:], s)
    moving = s >= 1.0
    assert np.array_equal(fr.head[1:][moving], v[moving] / s[moving][:, None])
    assert not fr.head[1:][~moving].any()


def test_rule_11_stationary_ball_keeps_its_last_line() -> None:
    fr = frames(_straight([(40, 25), (50, 25), (50, 25), (50, 25)], n=61))
    assert fr.line_id[-1] == fr.line_id[5] >= 0
    assert fr.line_dir[-1].tolist() == pytest.approx([1.0, 0.0])


def test_rule_11_hit_at_and_missed_sets_a_line_at_the_stroke() -> None:
    # stationary ball; white 1 rides along +y and misses at 1.0 s
    t = np.arange(50) / 25.0
    ball = np.tile([50.0, 25.0], (50, 1))
    blue = np.tile([30.0, 10.0], (50, 1))
    white = np.stack([np.full(50, 50.0), 20.0 + 5.0 * t], axis=1)
    tr = Tracking(
        t, (PlayerId("blue", 1), PlayerId("white", 1)), np.stack([blue, white], 1), ball,
        (Event(1.0, EventKind.MISS, PlayerId("white", 1)),),
    )  # fmt: skip
    fr = frames(tr)
    assert fr.line_id[20] == -1 and fr.line_id[30] == 25
    assert fr.line_dir[30].tolist() == pytest.approx([0.0, 1.0])


def test_rule_12_right_of_way_goes_to_the_player_on_the_line() -> None:
    tr = load_shipped("12-row-cross").tracking()
    fr = frames(tr)
    assert str(tr.players[int(fr.holder[30])]) == "blue:3"


def test_rule_12_row_cross_detected_with_evidence() -> None:
    (c,) = detect(load_shipped("12-row-cross").tracking())
    assert (c.clause, c.who, c.evidence["holder"]) == (Clause.R12, "white:1", "blue:3")
    d = c.evidence["distance_yd"]
    assert isinstance(d, float) and 1.5 < d < 9.0


def test_rule_13j_riding_into_the_wall() -> None:
    # white 1 pushes blue 1 towards the side wall y = 0, shoulder to shoulder
    t = np.arange(40) / 25.0
    blue = np.stack([30.0 + 7 * t, 3.0 - 1.8 * t], axis=1)
    white = blue + np.array([0.0, 1.2])
    tr = Tracking(t, (PlayerId("blue", 1), PlayerId("white", 1)), np.stack([blue, white], 1), None)
    cands = detect(tr)
    assert [(str(c.clause), c.who, c.evidence["wall"]) for c in cands] == [
        ("13j", "white:1", "side")
    ]
    assert [c.to_json() for c in cands] == [c.to_json() for c in detect_reference(tr)]
    # the same ride parallel to the wall is no candidate
    flat = np.stack([30.0 + 7 * t, np.full(40, 1.5)], axis=1)
    tr2 = Tracking(t, tr.players, np.stack([flat, flat + np.array([0.0, 1.2])], 1), None)
    assert detect(tr2) == []


def test_tracking_csv_and_parquet_round_trip(tmp_path: Path) -> None:
    tr = load_shipped("13b-zigzag").tracking()
    for name, write in (("a.csv", write_csv), ("a.parquet", write_parquet)):
        write(tr, tmp_path / name)
        back = read_tracking(tmp_path / name)
        assert back.players == tr.players
        assert np.array_equal(back.t, tr.t)
        assert np.array_equal(back.pos, tr.pos)
        assert back.ball is not None and tr.ball is not None
        assert np.array_equal(back.ball, tr.ball)
        # events are not in tracking files (no whistle): same as the scenario without them
        plain = Tracking(tr.t, tr.players, tr.pos, tr.ball)
        assert [c.to_json() for c in detect(back)] == [c.to_json() for c in detect(plain)]


def test_tracking_gaps_are_interpolated(tmp_path: Path) -> None:
    p = tmp_path / "g.csv"
    p.write_text("t,entity,x,y\n0,blue:1,0,0\n0,ball,1,1\n1,ball,2,2\n2,blue:1,4,0\n2,ball,3,3\n")
    tr = read_tracking(p)
    assert tr.pos[:, 0, 0].tolist() == [0.0, 2.0, 4.0]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("t,entity,x,y\n0,blue1,0,0\n", r"row 1: 'blue1' is not 'ball' or TEAM:NO"),
        ("t,entity,x\n0,ball,0\n", "missing column"),
        ("t,entity,x,y\n0,ball,0,0\n0,ball,1,1\n", "ball twice"),
        ("t,entity,x,y\n0,ball,a,0\n", "cannot read"),
    ],
)
def test_tracking_errors_say_where(tmp_path: Path, body: str, message: str) -> None:
    p = tmp_path / "bad.csv"
    p.write_text(body)
    with pytest.raises(TrackingError, match=message):
        read_tracking(p)
    with pytest.raises(TrackingError, match="unknown tracking format"):
        read_tracking(tmp_path / "x.json")
