"""GPS sessions (contract chukker-gps/1): projection, resampling, dropouts, errors, CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from chukker.plays import load_shipped
from chukker.plays.cli import app
from chukker.plays.gps import ArenaProjection, GPSError, read_session, session_from_fixes
from chukker.plays.gps_sessions import (
    EXAMPLE_CORNERS,
    Degrade,
    example_projection,
    fixes_from_tracking,
    unit_names,
    write_session,
)
from chukker.plays.tracking import PlayerId

runner = CliRunner()
ARENA_CORNERS = {"sw": (0.0, 0.0), "nw": (0.0, 50.0), "ne": (100.0, 50.0), "se": (100.0, 0.0)}


def _rotated_corners(deg: float) -> dict[str, tuple[float, float]]:
    """An arena turned ``deg`` from east, 100 x 50 yd, surveyed about Palm Beach."""
    lat0, lon0 = 26.6152, -80.1995
    m_lat = 110_800.0
    m_lon = 111_320.0 * math.cos(math.radians(lat0))
    a = math.radians(deg)
    out = {}
    for name, (x, y) in ARENA_CORNERS.items():
        e = (x - 50) * 0.9144 * math.cos(a) - (y - 25) * 0.9144 * math.sin(a)
        n = (x - 50) * 0.9144 * math.sin(a) + (y - 25) * 0.9144 * math.cos(a)
        out[name] = (lat0 + n / m_lat, lon0 + e / m_lon)
    return out


@pytest.mark.parametrize("deg", [0.0, 37.0, 180.0, -101.0])
def test_gps_corners_map_to_the_arena_corners_within_a_tenth_of_a_yard(deg: float) -> None:
    corners = EXAMPLE_CORNERS if deg == 0.0 else _rotated_corners(deg)
    proj = ArenaProjection.from_corners(**corners)
    for name, (x, y) in ARENA_CORNERS.items():
        u, v = proj.to_arena([corners[name][0]], [corners[name][1]])
        assert abs(float(u[0]) - x) <= 0.1 and abs(float(v[0]) - y) <= 0.1, name


def test_gps_known_points_round_trip_and_distances_are_true() -> None:
    proj = ArenaProjection.from_corners(**_rotated_corners(37.0))
    x = np.array([50.0, 10.0, 90.0, -15.0])
    y = np.array([25.0, 3.0, 47.0, 60.0])
    lat, lon = proj.to_latlon(x, y)
    u, v = proj.to_arena(lat, lon)
    assert np.allclose(u, x, atol=0.01) and np.allclose(v, y, atol=0.01)
    # the centre of the arena is the mean of the corners here (a rectangle)
    assert abs(float(lat[0]) - 26.6152) < 1e-6 and abs(float(lon[0]) + 80.1995) < 1e-6


def test_gps_resamples_unsynchronised_units_to_one_clock_and_fills_dropouts() -> None:
    tr = load_shipped("13b-zigzag").tracking()
    proj = example_projection()
    units = unit_names(tr)
    first = next(iter(units))
    deg = Degrade(rate_hz=10.0, noise_m=0.0, drop=0.1, offsets_s=((first, 0.23),))
    t, u, lat, lon = fixes_from_tracking(tr, proj, units, deg, seed=3)
    ses = session_from_fixes(t, u, lat, lon, units, proj, cutoff_hz=0.0)
    assert ses.interval_s == pytest.approx(0.04)  # the common clock, 25 Hz
    assert ses.tracking.t[0] == 0.0
    rep = {r.unit: r for r in ses.units}
    for name, r in rep.items():
        assert r.read == u.count(name)
        assert r.dropped == 0
        assert r.median_interval_s == pytest.approx(0.1, abs=1e-6)
    assert sum(r.filled for r in rep.values()) > 0
    # without noise, positions on the common clock follow the clean track (linear motion)
    j = tr.players.index(units[first])
    clean = np.interp(ses.tracking.t, tr.t, tr.pos[:, j, 0])
    inside = (ses.tracking.t >= 0.3) & (ses.tracking.t <= 3.1)
    assert np.allclose(ses.tracking.pos[inside, j, 0], clean[inside], atol=0.05)


def test_gps_smoothing_reduces_the_noise() -> None:
    tr = load_shipped("13f-two-on-one").tracking()
    proj = example_projection()
    units = unit_names(tr)
    t, u, lat, lon = fixes_from_tracking(tr, proj, units, Degrade(noise_m=0.5, drop=0.0), 5)
    raw = session_from_fixes(t, u, lat, lon, units, proj, cutoff_hz=0.0).tracking
    smooth = session_from_fixes(t, u, lat, lon, units, proj).tracking

    def err(x: object) -> float:
        from chukker.plays.tracking import Tracking

        assert isinstance(x, Tracking)
        ref = np.stack(
            [np.interp(x.t, tr.t, tr.pos[:, j, k]) for j in range(4) for k in (0, 1)], axis=1
        )
        return float(np.sqrt(np.mean((x.pos.reshape(x.frames, -1) - ref) ** 2)))

    assert err(smooth) < 0.8 * err(raw)


def test_gps_fixes_far_outside_the_arena_are_dropped_and_reported() -> None:
    proj = example_projection()
    lat, lon = proj.to_latlon(np.array([50.0, 51.0, 150.0, 52.0]), np.array([25.0, 25, 25, 25]))
    t = np.array([0.0, 0.1, 0.2, 0.3])
    ses = session_from_fixes(t, ["A"] * 4, lat, lon, {"A": PlayerId("blue", 1)}, proj)
    (r,) = ses.units
    assert (r.read, r.dropped) == (4, 1)
    assert ses.to_json()["units"]["A"]["dropped"] == 1


def _session(tmp_path: Path, csv: str) -> Path:
    (tmp_path / "fixes.csv").write_text(csv, encoding="utf-8")
    toml = tmp_path / "s.toml"
    toml.write_text(
        'format = "chukker-gps/1"\nfixes = "fixes.csv"\n[arena]\n'
        "sw = [26.61500, -80.20000]\nnw = [26.61541, -80.20000]\n"
        "ne = [26.61541, -80.19909]\nse = [26.61500, -80.19909]\n"
        '[units]\n"GX-104" = "blue:1"\n"GX-221" = "white:2"\n',
        encoding="utf-8",
    )
    return toml


GOOD = (
    "time,unit,lat,lon\n"
    "2026-12-05T10:00:00.000Z,GX-104,26.615204,-80.199871\n"
    "2026-12-05T10:00:00.000Z,GX-221,26.615198,-80.199790\n"
    "2026-12-05T10:00:00.100Z,GX-104,26.615205,-80.199861\n"
    "2026-12-05T10:00:00.150Z,GX-221,26.615198,-80.199780\n"
)


def test_gps_session_of_the_contract_reads(tmp_path: Path) -> None:
    ses = read_session(_session(tmp_path, GOOD))
    assert [str(p) for p in ses.tracking.players] == ["blue:1", "white:2"]
    assert ses.to_json()["units"]["GX-221"]["median_interval_s"] == 0.15
    # epoch seconds read the same
    epoch = GOOD.replace("2026-12-05T10:00:00.", "1796464800.").replace("Z,", ",")
    ses2 = read_session(_session(tmp_path, epoch))
    assert np.allclose(ses.tracking.pos, ses2.tracking.pos)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (GOOD.replace("26.615205", "north"), "row 3 (unit GX-104): lat"),
        (GOOD.replace("10:00:00.150Z", "10:00:00.150"), "row 4 (unit GX-221): time"),
        (GOOD.replace("10:00:00.150Z", "yesterday"), "row 4 (unit GX-221): time"),
        (
            GOOD.replace("GX-221,26.615198,-80.199780", "GX-999,26.615198,-80.199780"),
            "row 4 (unit GX-999)",
        ),
        (GOOD.replace("10:00:00.100Z,GX-104", "10:00:00.000Z,GX-104"), "row 3 (unit GX-104)"),
        (GOOD.replace("-80.199790", "-280.1"), "row 2 (unit GX-221): lon"),
    ],
)
def test_gps_errors_name_the_row_and_the_unit(tmp_path: Path, bad: str, message: str) -> None:
    with pytest.raises(GPSError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_session(_session(tmp_path, bad))
    res = runner.invoke(app, ["analyze", str(tmp_path / "s.toml"), "--json"])
    assert res.exit_code == 2 and message.split(":")[0] in res.output


def test_gps_analyze_json_is_the_tracking_object_plus_gps(tmp_path: Path) -> None:
    tr = load_shipped("13b-zigzag").tracking()
    proj = example_projection()
    units = unit_names(tr)
    t, u, lat, lon = fixes_from_tracking(tr, proj, units, Degrade(), seed=1)
    path = write_session(tmp_path / "zigzag.toml", t, u, lat, lon, units)
    res = runner.invoke(app, ["analyze", str(path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert set(out) == {"candidates", "gps"}
    assert [(c["clause"], c["team"], c["player"]) for c in out["candidates"]] == [
        ("13b", "white", 2)
    ]
    assert set(out["candidates"][0]) == {"clause", "team", "player", "start", "end", "evidence"}
    g = out["gps"]
    assert set(g["units"]) == set(units)
    for rep in g["units"].values():
        assert set(rep) >= {"read", "dropped", "filled", "median_interval_s"}
    assert {x["clause"] for x in g["not_run"]} >= {"12", "13d", "13k"}


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gps"


def test_gps_example_session_finds_the_plays_it_was_made_from() -> None:
    res = runner.invoke(app, ["analyze", str(EXAMPLE / "session.toml"), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    expected = json.loads((EXAMPLE / "expected.json").read_text(encoding="utf-8"))
    got = [(c["clause"], c["team"], c["player"]) for c in out["candidates"]]
    assert got == [("13b", "white", 2), ("13f", "white", 2), ("13g", "white", 1),
                   ("13i", "white", 2), ("13b", "white", 2)]  # fmt: skip
    assert got == [(c["clause"], c["team"], c["player"]) for c in expected["candidates"]]
    units = out["gps"]["units"]
    assert set(units) == {"GX-104", "GX-117", "GX-221", "GX-230"}
    assert all(u["filled"] > 0 and u["median_interval_s"] == 0.1 for u in units.values())


def test_gps_parquet_fixes_with_a_ball_track_run_the_line_of_the_ball(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from chukker.plays import write_csv
    from chukker.plays.tracking import Tracking

    tr = load_shipped("12-row-cross").tracking()
    proj = example_projection()
    units = unit_names(tr)
    t, u, lat, lon = fixes_from_tracking(tr, proj, units, Degrade(rate_hz=10.0), seed=4)
    ns = (t * 1e9).astype("int64")
    table = pa.table(
        {"time": pa.array(ns, pa.timestamp("ns", tz="UTC")), "unit": u, "lat": lat, "lon": lon}
    )
    pq.write_table(table, tmp_path / "fixes.parquet")
    assert tr.ball is not None
    write_csv(Tracking(tr.t, (), tr.pos[:, :0], tr.ball), tmp_path / "ball.csv")
    lines = ['format = "chukker-gps/1"', 'fixes = "fixes.parquet"', 'ball = "ball.csv"', "[arena]"]
    lines += [f"{c} = [{a}, {o}]" for c, (a, o) in EXAMPLE_CORNERS.items()]
    lines += ["[units]"] + [f'"{k}" = "{v}"' for k, v in units.items()]
    (tmp_path / "s.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ses = read_session(tmp_path / "s.toml")
    assert ses.runs("12") and ses.runs("13k") and not ses.runs("13a")
    from chukker.plays.gps import analyse

    assert [(str(c.clause), c.who) for c in analyse(ses)] == [("12", "white:1")]
