"""GPS sessions from the devices riders wear (issue 23): one GPX, FIT or TCX file per unit,
format from the content, UTC from the file, per-unit clock offsets, and recordings
trimmed to the arena; the same candidates as the CSV of the same play."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from chukker.plays import load_shipped
from chukker.plays.cli import app
from chukker.plays.device_writers import write_device_session, write_gpx, write_tcx
from chukker.plays.devices import (
    MAX_XML_DEPTH,
    DeviceError,
    DeviceKind,
    kind_of,
    parse_device,
    read_device,
)
from chukker.plays.gps import analyse, read_session
from chukker.plays.gps_sessions import (
    Degrade,
    example_projection,
    fixes_from_tracking,
    unit_names,
    write_session,
)

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gps"


def _fixes(play: str, rate_hz: float = 10.0, seed: int = 1) -> tuple:  # type: ignore[type-arg]
    tr = load_shipped(play).tracking()
    units = unit_names(tr)
    t, u, lat, lon = fixes_from_tracking(tr, example_projection(), units,
                                         Degrade(rate_hz=rate_hz), seed=seed)
    return t, u, lat, lon, units


def _found(path: Path) -> list[tuple[str, str, int, float, float]]:
    res = runner.invoke(app, ["analyze", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return [(c["clause"], c["team"], c["player"], c["start"], c["end"])
            for c in json.loads(res.output)["candidates"]]


@pytest.mark.parametrize("kind", [DeviceKind.GPX, DeviceKind.TCX])
def test_gps_device_files_give_the_candidates_of_the_csv_of_the_same_play(
        tmp_path: Path, kind: DeviceKind) -> None:
    t, u, lat, lon, units = _fixes("13b-zigzag")
    csv = write_session(tmp_path / "csv.toml", t, u, lat, lon, units)
    dev = write_device_session(tmp_path / "dev.toml", t, u, lat, lon, units,
                               dict.fromkeys(units, kind))
    assert "fixes" not in dev.read_text()
    assert _found(dev) == _found(csv)
    assert [c[:3] for c in _found(dev)] == [("13b", "white", 2)]


def test_gps_one_session_mixes_gpx_fit_and_tcx_units(tmp_path: Path) -> None:
    pytest.importorskip("fit_tool")
    t, u, lat, lon, units = _fixes("13b-zigzag", rate_hz=1.0)
    kinds = [DeviceKind.GPX, DeviceKind.FIT, DeviceKind.TCX]
    mixed = {name: kinds[i % 3] for i, name in enumerate(units)}
    csv = write_session(tmp_path / "csv.toml", t, u, lat, lon, units)
    dev = write_device_session(tmp_path / "dev.toml", t, u, lat, lon, units, mixed)
    ses = read_session(dev)
    assert {r.device for r in ses.units} == {"gpx", "fit", "tcx"}
    # at 1 Hz a FIT file's whole seconds are the fixes' own times: the same candidates
    assert [c[:3] for c in _found(dev)] == [c[:3] for c in _found(csv)]


def test_gps_fit_at_10_hz_spreads_the_records_of_each_second(tmp_path: Path) -> None:
    pytest.importorskip("fit_tool")
    from chukker.plays.device_writers import write_fit

    t = 1_796_464_800.0 + np.arange(0, 30) / 10.0
    lat = np.full(t.size, 26.6152)
    lon = np.linspace(-80.1999, -80.1990, t.size)
    write_fit(tmp_path / "w.fit", t, lat, lon)
    tr = read_device(tmp_path / "w.fit")
    assert tr.kind is DeviceKind.FIT
    assert np.allclose(tr.t, t, atol=1e-6)
    assert np.allclose(tr.lat, lat, atol=1e-6) and np.allclose(tr.lon, lon, atol=1e-6)


def test_gps_device_format_comes_from_the_content_not_the_name(tmp_path: Path) -> None:
    t = 1_796_464_800.0 + np.arange(3.0)
    write_gpx(tmp_path / "track.fit", t, np.full(3, 26.6152), np.full(3, -80.1999))
    write_tcx(tmp_path / "track.gpx", t, np.full(3, 26.6152), np.full(3, -80.1999))
    assert read_device(tmp_path / "track.fit").kind is DeviceKind.GPX
    assert read_device(tmp_path / "track.gpx").kind is DeviceKind.TCX
    with pytest.raises(DeviceError, match="not a GPX, FIT or TCX"):
        kind_of(b"time,unit,lat,lon\n", "fixes.gpx")


@pytest.mark.parametrize(("magic", "what"), [(b"\x1f\x8b\x08", "gzip"), (b"BZh91AY", "bzip2"),
                                             (b"PK\x03\x04", "zip"), (b"\xfd7zXZ\x00", "xz")])
def test_gps_device_files_refuse_compressed_input(magic: bytes, what: str) -> None:
    with pytest.raises(DeviceError, match=f"compressed file \\({what}\\)"):
        parse_device(magic + b"\x00" * 64, "ride.gpx")


def test_gps_device_xml_entities_are_never_expanded() -> None:
    bomb = (b'<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa">'
            b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            b'<gpx version="1.1" creator="&b;"><trk><trkseg></trkseg></trk></gpx>')
    with pytest.raises(DeviceError, match="DTD or entities"):
        parse_device(bomb, "bomb.gpx")


def test_gps_device_xml_nested_too_deep_is_refused_not_a_recursion_error() -> None:
    deep = b'<gpx version="1.1">' + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</gpx>"
    with pytest.raises(DeviceError, match=f"deeper than {MAX_XML_DEPTH}"):
        parse_device(deep, "deep.gpx")


def test_gps_device_too_many_points_is_refused(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    import chukker.plays.devices as devices

    monkeypatch.setattr(devices, "MAX_POINTS", 5)
    t = 1_796_464_800.0 + np.arange(6.0)
    write_gpx(tmp_path / "a.gpx", t, np.full(6, 26.6152), np.full(6, -80.1999))
    with pytest.raises(DeviceError, match="more than 5 points"):
        read_device(tmp_path / "a.gpx")


@pytest.mark.parametrize(("body", "message"), [
    ('<trkpt lat="26.6" lon="-80.1"></trkpt>',
     "a.gpx: no track points with a time and a position (1 of 1 points have no time)"),
    ('<trkpt lat="26.6" lon="-80.1"><time>2026-12-05T10:00:01Z</time></trkpt>'
     '<trkpt lat="26.6" lon="-80.1"><time>2026-12-05T10:00:00Z</time></trkpt>',
     "a.gpx: 1 of 2 points go back in time: more than 5% of the points are unusable"),
    ('<trkpt lat="26.6" lon="-80.1"><time>2026-12-05T10:00:00Z', "a.gpx: line 1, column"),
])
def test_gps_malformed_device_file_gets_one_line_naming_the_file_and_point(
        tmp_path: Path, body: str, message: str) -> None:
    (tmp_path / "a.gpx").write_text(
        '<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">'
        f"<trk><trkseg>{body}</trkseg></trk></gpx>", encoding="utf-8")
    with pytest.raises(DeviceError) as err:
        read_device(tmp_path / "a.gpx")
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_gps_device_recording_is_trimmed_to_the_arena_and_the_cut_reported(
        tmp_path: Path) -> None:
    """A phone started in the lorry park and stopped at the barn: only the fixes inside
    the arena are used, the session's clock starts at the first of them, and the unit
    says what was cut before and after."""
    t, u, lat, lon, units = _fixes("13b-zigzag")
    name = next(iter(units))
    rows = np.flatnonzero(np.asarray(u) == name)
    lorry = 1_796_464_800.0 - 600 + np.arange(0, 300.0)  # 5 min, 10 min before, 300 m away
    barn = t[rows][-1] + 60 + np.arange(0, 120.0)
    t2 = np.concatenate([lorry, t, barn])
    u2 = [name] * lorry.size + list(u) + [name] * barn.size
    lat2 = np.concatenate([np.full(lorry.size, 26.6180), lat, np.full(barn.size, 26.6120)])
    lon2 = np.concatenate([np.full(lorry.size, -80.1999), lon, np.full(barn.size, -80.1999)])
    csv = write_session(tmp_path / "csv.toml", t, u, lat, lon, units)
    dev = write_device_session(tmp_path / "dev.toml", t2, u2, lat2, lon2, units,
                               dict.fromkeys(units, DeviceKind.GPX))
    ses = read_session(dev)
    rep = {r.unit: r for r in ses.units}[name]
    assert (rep.cut_before, rep.cut_after) == (lorry.size, barn.size)
    assert rep.first_used == pytest.approx(float(t[rows][0]), abs=1e-3)
    assert rep.last_used == pytest.approx(float(t[rows][-1]), abs=1e-3)
    assert ses.start_epoch_s == pytest.approx(float(t.min()), abs=1e-3)
    assert _found(dev) == _found(csv)
    res = runner.invoke(app, ["analyze", str(dev), "--json"])
    trim = json.loads(res.output)["gps"]["units"][name]["trim"]
    assert trim["cut_before"] == lorry.size and trim["cut_after"] == barn.size
    assert trim["first_used"].endswith("+00:00")


def test_gps_device_quirks_1_hz_a_40_s_gap_and_a_clock_2_s_off(tmp_path: Path) -> None:
    """A real device's recording: 1 Hz, a 40-second gap, a clock 2 s ahead (the session
    says ``offset_s = -2``): it reads, the gap is filled and counted, and the candidates
    are those of the same recording with a true clock."""
    from chukker.plays.gps import read_fixes

    t, u, lat, lon = read_fixes(EXAMPLE / "session-fixes.csv")
    import tomllib

    from chukker.plays.tracking import PlayerId

    doc = tomllib.loads((EXAMPLE / "session.toml").read_text(encoding="utf-8"))
    units = {k: PlayerId.parse(v, k) for k, v in doc["units"].items()}
    name = "GX-230"
    rows = np.flatnonzero(np.asarray(u) == name)
    tq = t[rows]
    one_hz = np.zeros(rows.size, bool)
    one_hz[np.unique(np.searchsorted(tq, np.arange(tq[0], tq[-1], 1.0)))] = True
    gap = (tq > tq[0] + 2.0) & (tq < tq[0] + 42.0)
    keep = np.ones(t.size, bool)
    keep[rows[~one_hz | gap]] = False
    t, lat, lon = t[keep], lat[keep], lon[keep]
    u = [x for x, k in zip(u, keep, strict=True) if k]
    kinds = dict.fromkeys(units, DeviceKind.GPX)
    true = write_device_session(tmp_path / "true.toml", t, u, lat, lon, units, kinds)
    off = write_device_session(tmp_path / "off.toml", t, u, lat, lon, units, kinds,
                               offsets_s={name: -2.0})
    assert "offset_s = -2" in off.read_text()
    written = read_device(tmp_path / f"off-{name}.gpx").t
    assert written[0] == pytest.approx(float(tq[0]) + 2.0, abs=1e-3)  # the clock 2 s ahead
    rep = {r.unit: r for r in read_session(off).units}[name]
    assert rep.filled >= 35 and rep.median_interval_s == pytest.approx(1.0, abs=0.05)
    assert rep.first_used == pytest.approx(float(tq[0]), abs=1e-3)  # put right
    assert _found(off) == _found(true)


def test_gps_unit_table_refuses_unknown_keys_and_bad_offsets(tmp_path: Path) -> None:
    from chukker.plays.gps import GPSError

    t, u, lat, lon, units = _fixes("13b-zigzag", rate_hz=1.0)
    dev = write_device_session(tmp_path / "s.toml", t, u, lat, lon, units,
                               dict.fromkeys(units, DeviceKind.GPX))
    text = dev.read_text()
    dev.write_text(text.replace("file =", "fiel =", 1))
    with pytest.raises(GPSError, match="unknown key 'fiel'"):
        read_session(dev)
    dev.write_text(text.replace(" }", ", offset_s = 1e9 }", 1))
    with pytest.raises(GPSError, match="offset_s"):
        read_session(dev)


def test_gps_shipped_device_example_finds_the_plays_of_its_csv() -> None:
    session = EXAMPLE / "devices" / "session.toml"
    if not session.exists():
        pytest.fail("examples/gps/devices/session.toml is missing (python examples/gps/make.py)")
    ses = read_session(session)
    assert {r.device for r in ses.units} == {"gpx", "fit", "tcx"}
    quirky = {r.unit: r for r in ses.units}["GX-230"]
    assert quirky.median_interval_s == pytest.approx(1.0, abs=0.05) and quirky.filled >= 35
    csv = read_session(EXAMPLE / "session.toml")
    assert abs(ses.start_epoch_s - csv.start_epoch_s) < 0.25
    found = [(str(c.clause), c.who) for c in analyse(ses)]
    expected = [(str(c.clause), c.who) for c in analyse(csv)]
    # the quirky unit (white:2) is seen at 1 Hz with a gap: the other riders' plays stay
    assert [f for f in expected if "white:2" not in f[1]] == \
        [f for f in found if "white:2" not in f[1]]


def test_gps_plays_arena_prints_the_corners_walked_with_one_device(tmp_path: Path) -> None:
    """Walk the four corners with one phone, standing still at each: `plays arena` prints
    the [arena] table, and the session made with it maps the corners to the arena's."""
    import tomllib

    from chukker.plays.gps import ArenaProjection
    from chukker.plays.gps_sessions import EXAMPLE_CORNERS

    t, la, lo = [], [], []
    now = 1_796_464_800.0
    names = ("sw", "nw", "ne", "se")
    for k, c in enumerate(names):
        a, o = EXAMPLE_CORNERS[c]
        for i in range(8):  # 8 s standing at the corner
            t.append(now)
            la.append(a + (i % 2) * 1e-6)
            lo.append(o)
            now += 1.0
        if k < 3:  # walking to the next corner, 30 s
            b, p = EXAMPLE_CORNERS[names[k + 1]]
            for i in range(1, 30):
                t.append(now)
                la.append(a + (b - a) * i / 30)
                lo.append(o + (p - o) * i / 30)
                now += 1.0
    write_gpx(tmp_path / "walk.gpx", np.array(t), np.array(la), np.array(lo))
    res = runner.invoke(app, ["arena", str(tmp_path / "walk.gpx")])
    assert res.exit_code == 0, res.output
    corners = tomllib.loads(res.output)["arena"]
    proj = ArenaProjection.from_corners(*(tuple(corners[c]) for c in names))
    x, y = proj.to_arena([EXAMPLE_CORNERS["ne"][0]], [EXAMPLE_CORNERS["ne"][1]])
    assert abs(float(x[0]) - 100) < 0.2 and abs(float(y[0]) - 50) < 0.2


def test_gps_plays_arena_without_four_stops_says_how_to_walk(tmp_path: Path) -> None:
    t = 1_796_464_800.0 + np.arange(60.0)
    write_gpx(tmp_path / "ride.gpx", t, 26.615 + np.arange(60.0) * 1e-5, np.full(60, -80.2))
    res = runner.invoke(app, ["arena", str(tmp_path / "ride.gpx")])
    assert res.exit_code == 2
    assert "stand still at each of the four corners" in res.output


@pytest.mark.parametrize(("rate_hz", "n"), [(1.0, 7), (10.0, 95), (4.0, 400)])
def test_gps_fit_fast_reader_equals_fitdecode(tmp_path: Path, rate_hz: float, n: int) -> None:
    """The vectorised FIT reader gives exactly what fitdecode gives on the same file."""
    pytest.importorskip("fit_tool")
    from chukker.plays import fit
    from chukker.plays.device_writers import write_fit

    rng = np.random.default_rng(n)
    t = 1_796_464_800.0 + np.arange(n) / rate_hz
    lat = 26.6152 + rng.normal(0, 1e-4, n)
    lon = -80.1995 + rng.normal(0, 1e-4, n)
    write_fit(tmp_path / "a.fit", t, lat, lon)
    data = (tmp_path / "a.fit").read_bytes()
    fast = fit.read_fit_fast(data, "a.fit")
    ref = fit.read_fit_decode(data, "a.fit")
    assert fast is not None
    assert np.array_equal(fast.t, ref.t)
    assert np.allclose(fast.lat, ref.lat, rtol=0, atol=1e-12)
    assert np.allclose(fast.lon, ref.lon, rtol=0, atol=1e-12)


def test_gps_fit_truncated_file_gets_one_line(tmp_path: Path) -> None:
    pytest.importorskip("fit_tool")
    from chukker.plays.device_writers import write_fit

    t = 1_796_464_800.0 + np.arange(20.0)
    write_fit(tmp_path / "a.fit", t, np.full(20, 26.6152), np.full(20, -80.1999))
    data = (tmp_path / "a.fit").read_bytes()
    with pytest.raises(DeviceError, match=r"a\.fit: the FIT header promises"):
        parse_device(data[: len(data) // 2], "a.fit")
