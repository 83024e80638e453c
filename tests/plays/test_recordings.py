"""Plays from real recordings (issue 34): keep what is good and drop and count what is
not (the 5% rule, gaps), one answer per FIT file whichever reader, ``chukker plays
inspect``, real-shaped test data of our own (1 Hz watches, 10 Hz vests, pauses, a unit
switched on in the lines) and bad input refused naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from chukker.plays.cli import app
from chukker.plays.device_writers import (
    WRITERS,
    Glitches,
    bad_crc,
    chain_fit,
    fit_bytes,
    recording,
    write_gpx,
)
from chukker.plays.devices import DeviceError, DeviceKind, Drop, parse_device, read_device
from chukker.plays.gps import read_session
from chukker.plays.gps_sessions import EXAMPLE_CORNERS, device_session_text

runner = CliRunner()
SHIPPED = Path(__file__).resolve().parents[2] / "examples" / "gps"
GLITCHES = Glitches(backwards=(20,), no_time=(25,), no_position=(30,), off_earth=(35,),
                    twice=(45,))


def _write(kind: DeviceKind, path: Path, rate_hz: float, glitches: Glitches = GLITCHES,
           **kw: object) -> Path:
    if kind is DeviceKind.FIT:
        pytest.importorskip("fit_tool")
        glitches = Glitches(glitches.backwards, glitches.no_time, glitches.no_position,
                            glitches.off_earth)  # a FIT record twice is two records
    t, lat, lon, segs = recording(rate_hz=rate_hz, glitches=glitches, **kw)  # type: ignore[arg-type]
    if kind is DeviceKind.GPX:
        write_gpx(path, t, lat, lon, segments=segs)
    else:
        WRITERS[kind](path, t, lat, lon)
    return path


@pytest.mark.parametrize("rate_hz", [1.0, 10.0])
@pytest.mark.parametrize("kind", list(DeviceKind))
def test_recordings_a_glitch_is_dropped_and_counted_by_reason_not_a_refusal(
        tmp_path: Path, kind: DeviceKind, rate_hz: float) -> None:
    path = _write(kind, tmp_path / f"a.{kind.value}", rate_hz, ride_s=85.0, lines_s=10.0)
    tr = read_device(path)
    assert dict(tr.dropped) == {Drop.BACKWARDS: 1, Drop.NO_TIME: 1, Drop.NO_POSITION: 1,
                                Drop.OFF_EARTH: 1}
    assert tr.merged == (0 if kind is DeviceKind.FIT else 1)  # a GPX point twice is one
    assert tr.t.size == tr.read - 4 - tr.merged
    assert bool(np.all(np.diff(tr.t) > 0))
    assert tr.rate_hz == pytest.approx(rate_hz, rel=0.01)
    assert len(tr.gaps) == 1 and tr.gaps[0][1] - tr.gaps[0][0] == pytest.approx(20, abs=1.1)


@pytest.mark.parametrize("kind", list(DeviceKind))
def test_recordings_more_than_5_percent_dropped_is_refused_with_the_counts(
        tmp_path: Path, kind: DeviceKind) -> None:
    n_pts = 40 * 1 + 10 + 100  # lines, walk and ride at 1 Hz, no pause
    g = Glitches(no_time=tuple(range(10, 10 + 9)))  # 9 of 150 = 6%
    path = _write(kind, tmp_path / f"a.{kind.value}", 1.0, g, ride_s=100.0, lines_s=40.0,
                  pauses=())
    with pytest.raises(DeviceError) as err:
        read_device(path)
    assert str(err.value).startswith(f"a.{kind.value}: 9 of {n_pts} points have no time")
    g = Glitches(no_time=tuple(range(10, 10 + 7)))  # 7 of 150: read
    assert read_device(_write(kind, tmp_path / f"b.{kind.value}", 1.0, g, ride_s=100.0,
                              lines_s=40.0, pauses=())).dropped == {"no_time": 7}


@pytest.mark.parametrize("kind", list(DeviceKind))
def test_recordings_records_with_no_position_are_counted_and_refused_only_in_gpx(
        tmp_path: Path, kind: DeviceKind) -> None:
    """A FIT record or TCX trackpoint with no position (heart rate before the GPS has a
    fix) is a sensor's sample: counted, not a track point for the 5% rule. A GPX
    ``<trkpt>`` without ``lat`` is a broken point, and counts."""
    g = Glitches(no_position=tuple(range(0, 30)))  # the first 30 s without a fix
    path = _write(kind, tmp_path / f"a.{kind.value}", 1.0, g, ride_s=100.0, lines_s=40.0,
                  pauses=())
    if kind is DeviceKind.GPX:
        with pytest.raises(DeviceError, match="30 of 150 points have no position"):
            read_device(path)
    else:
        tr = read_device(path)
        assert tr.dropped == {"no_position": 30} and tr.t.size == 120


def test_recordings_the_issues_mountain_and_lake_tracks_read(tmp_path: Path) -> None:
    """184 points with one a second back; 296 whose last has no time: both read."""
    t = 1_796_464_800.0 + np.arange(184.0)
    t[1] = t[0] - 1
    write_gpx(tmp_path / "m.gpx", t, 46.5 + np.arange(184) * 1e-5, np.full(184, 8.0))
    assert read_device(tmp_path / "m.gpx").dropped == {"backwards": 1}
    t = 1_796_464_800.0 + np.arange(296.0)
    t[-1] = np.nan
    write_gpx(tmp_path / "l.gpx", t, 46.5 + np.arange(296) * 1e-5, np.full(296, 8.0))
    tr = read_device(tmp_path / "l.gpx")
    assert tr.dropped == {"no_time": 1} and tr.t.size == 295


def test_recordings_whole_second_gpx_of_a_10_hz_unit_is_spread_like_fit(tmp_path: Path) -> None:
    t = np.floor(1_796_464_800.0 + np.arange(50) / 10)
    write_gpx(tmp_path / "a.gpx", t, 26.6152 + np.arange(50) * 1e-6, np.full(50, -80.2))
    tr = read_device(tmp_path / "a.gpx")
    assert tr.t.size == 50 and tr.rate_hz == pytest.approx(10.0)


def _session(tmp_path: Path, kinds: dict[str, DeviceKind], rate_hz: float = 1.0) -> Path:
    units = {}
    for i, (team, kind) in enumerate(kinds.items()):
        name = f"{team}.{kind.value}"
        _write(kind, tmp_path / name, rate_hz, seed=i + 1)
        units[name] = (f"{team}:1", 0.0)
    p = tmp_path / "s.toml"
    p.write_text(device_session_text(units, EXAMPLE_CORNERS), encoding="utf-8")
    return p


def test_recordings_the_units_report_says_what_was_dropped_and_why_and_the_gaps(
        tmp_path: Path) -> None:
    """A unit switched on in the lines, with a pause: ``analyze --json`` gps.units.U
    says what the file gave (dropped by reason), what was cut before the arena, and the
    gap; no candidate of that rider is kept across the gap."""
    s = _session(tmp_path, {"blue": DeviceKind.GPX, "white": DeviceKind.FIT})
    res = runner.invoke(app, ["analyze", str(s), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    for u, kind in (("blue", "gpx"), ("white", "fit")):
        rep = out["gps"]["units"][u]
        assert rep["file"]["kind"] == kind
        assert rep["file"]["dropped"] == {"no_time": 1, "no_position": 1, "off_earth": 1,
                                          "backwards": 1}
        assert rep["trim"]["cut_before"] >= 30  # switched on in the lines
        assert len(rep["gaps"]) == 1 and rep["gaps"][0]["s"] == pytest.approx(20, abs=1.1)
    ses = read_session(s)
    gaps = ses.gaps
    for c in out["candidates"]:
        from chukker.plays.tracking import PlayerId

        for a, b in gaps.get(PlayerId(c["team"], c["player"]), ()):
            assert not (c["start"] < b and c["end"] > a)


# ------------------------------------------------------------ one answer per FIT file


def _fit_files(tmp_path: Path) -> dict[str, bytes]:
    """Every FIT file the tests make or ship: clean, glitched, chained, with a bad CRC,
    cut short, lying about its size, or followed by bytes that are not FIT."""
    pytest.importorskip("fit_tool")
    out = {p.name: p.read_bytes() for p in sorted(SHIPPED.glob("devices/*.fit"))}
    for rate in (1.0, 10.0):
        ride = 60.0 if rate == 1 else 25.0
        t, la, lo, _ = recording(rate_hz=rate, ride_s=ride, lines_s=10.0, pauses=((5, 6),))
        out[f"clean-{rate:g}hz.fit"] = fit_bytes(t, la, lo)
        g = Glitches(backwards=(20,), no_time=(25,), no_position=(30,), off_earth=(35,))
        t, la, lo, _ = recording(rate_hz=rate, ride_s=ride, lines_s=10.0, glitches=g)
        out[f"glitched-{rate:g}hz.fit"] = fit_bytes(t, la, lo)
    act = out["clean-1hz.fit"]
    settings = fit_bytes(np.empty(0), np.empty(0), np.empty(0), "SETTINGS")
    out["chained-settings-bad-crc.fit"] = chain_fit(act, bad_crc(settings))
    t, la, lo, _ = recording(rate_hz=10.0, ride_s=15.0, lines_s=0.0, pauses=(),
                             start=1_796_464_800.0 + 3600)
    out["chained-two-activities.fit"] = chain_fit(act, fit_bytes(t, la, lo))
    out["chained-second-cut-short.fit"] = chain_fit(act, settings[:-5])
    out["trailing-bytes.fit"] = act + b"not a FIT file at all"
    out["bad-crc.fit"] = bad_crc(act)
    from chukker.plays.fit import crc16

    head = bytes([14]) + act[1:12]
    body = head + crc16(head).to_bytes(2, "little") + act[12:-2]
    out["header-14.fit"] = body + crc16(body).to_bytes(2, "little")  # as Garmin writes
    h14 = out["header-14.fit"]
    out["bad-header-crc.fit"] = h14[:12] + bytes([h14[12] ^ 0xFF, h14[13]]) + h14[14:]
    out["truncated.fit"] = act[: len(act) // 2]
    out["header-lies.fit"] = act[:4] + (10**9).to_bytes(4, "little") + act[8:]
    out["messages-garbled.fit"] = act[:40] + bytes([0x4F] * 30) + act[70:]
    t, la, lo, _ = recording(rate_hz=1.0, ride_s=30.0, lines_s=0.0,
                             glitches=Glitches(no_time=tuple(range(0, 30))))
    out["mostly-no-time.fit"] = fit_bytes(t, la, lo)
    return out


def _answer(reader: object, data: bytes, name: str) -> object:
    try:
        tr = reader(data, name)  # type: ignore[operator]
    except DeviceError as exc:
        return ("refused", str(exc))
    if tr is None:
        return None
    return (tr.t.tolist(), np.round(tr.lat, 12).tolist(), np.round(tr.lon, 12).tolist(),
            dict(tr.dropped), tr.read, tr.gaps, tr.notes)


def test_fit_readers_agree_on_every_fit_file_the_tests_make_or_ship(tmp_path: Path) -> None:
    """The differential test: the fast reader (where it does not hand the file over)
    and fitdecode give the same points, counts, notes and refusals."""
    from chukker.plays import fit

    files = _fit_files(tmp_path)
    fast_read = 0
    for name, data in files.items():
        ref = _answer(fit.read_fit_decode, data, name)
        fast = _answer(fit.read_fit_fast, data, name)
        assert fast is None or fast == ref, name
        assert _answer(fit.read_fit, data, name) == ref, name
        fast_read += fast is not None and fast[0] != "refused"
    assert fast_read >= 8  # the fast path is the one taken on sound files
    chained = _answer(fit.read_fit, files["chained-settings-bad-crc.fit"], "c.fit")
    assert isinstance(chained, tuple) and chained[-1] == (
        "FIT file 2 of 2: its file CRC does not match its bytes; its points are kept, since "
        "its messages read", "FIT file 2 of 2, chained after the first, is read (0 records)")
    two = _answer(fit.read_fit, files["chained-two-activities.fit"], "c.fit")
    assert isinstance(two, tuple) and "is read" in two[-1][0]
    cut = _answer(fit.read_fit, files["chained-second-cut-short.fit"], "c.fit")
    assert isinstance(cut, tuple) and "cut short" in cut[-1][0] and "skipped" in cut[-1][0]
    bad = _answer(fit.read_fit, files["bad-crc.fit"], "b.fit")
    assert isinstance(bad, tuple) and bad[-1] == (
        "its file CRC does not match its bytes; its points are kept, since its "
        "messages read",)


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize(("make", "words"), [
    (lambda fit: b"", "an empty file (0 bytes)"),
    (lambda fit: fit[: len(fit) // 3], "the FIT header promises"),
    (lambda fit: fit[:4] + (2**31).to_bytes(4, "little") + fit[8:], "the FIT header promises"),
    (lambda fit: b'<?xml version="1.0"?><gpx version="1.1"><trk>'
     + b"<trkseg/>" * 5_000_000 + b"</trk></gpx>", "track segments in"),
    (lambda fit: b'<gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="2"><time>2026-',
     "not well-formed XML"),
    (lambda fit: b'<gpx version="1.1"><trk>' + b'<trkseg><trkpt lat="1" lon="2"/></trkseg>'
     * 20_000 + b"<trkseg/>" * 200_000 + b"</trk></gpx>", "track segments in"),
    (lambda fit: b'<gpx version="1.1"><trk>' + b'<trkseg><trkpt lat="1" lon="2"/></trkseg>'
     * 20_000 + b"<trk/>" * 40_000 + b"</trk></gpx>", "segments or laps for 20000 track"),
])
def test_bad_input_is_refused_naming_the_file(make: object, words: str) -> None:
    pytest.importorskip("fit_tool")
    t, la, lo, _ = recording(rate_hz=1.0, ride_s=20.0, lines_s=0.0, pauses=())
    data = make(fit_bytes(t, la, lo))  # type: ignore[operator]
    with pytest.raises(DeviceError) as err:
        parse_device(data, "rider.x")
    assert str(err.value).startswith("rider.x: ") and words in str(err.value)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------ chukker plays inspect


def test_plays_inspect_json_gives_one_object_per_file_and_exit_1_on_a_refusal(
        tmp_path: Path) -> None:
    a = _write(DeviceKind.GPX, tmp_path / "a.gpx", 10.0)
    (tmp_path / "empty.fit").write_bytes(b"")
    b = _write(DeviceKind.TCX, tmp_path / "b.tcx", 1.0)
    res = runner.invoke(app, ["inspect", "--json", str(a), str(tmp_path / "empty.fit"), str(b)])
    assert res.exit_code == 1
    lines = [json.loads(x) for x in res.output.splitlines()]
    assert [x["file"] for x in lines] == [str(a), str(tmp_path / "empty.fit"), str(b)]
    first = lines[0]
    assert list(first)[:7] == ["file", "kind", "points", "dropped", "first", "last", "rate_hz"]
    assert first["kind"] == "gpx" and first["rate_hz"] == pytest.approx(10.0)
    assert first["dropped"] == {"no_time": 1, "no_position": 1, "off_earth": 1, "backwards": 1}
    assert first["first"].endswith("Z") and first["last"] > first["first"]
    assert set(lines[1]) == {"file", "refused"} and "empty file" in lines[1]["refused"]
    assert lines[2]["kind"] == "tcx"
    ok = runner.invoke(app, ["inspect", "--json", str(a)])
    assert ok.exit_code == 0


def test_plays_inspect_prints_the_summary_and_whether_the_track_enters_the_arena(
        tmp_path: Path) -> None:
    a = _write(DeviceKind.GPX, tmp_path / "a.gpx", 1.0)
    corners = ",".join(f"{v}" for c in ("sw", "nw", "ne", "se") for v in EXAMPLE_CORNERS[c])
    res = runner.invoke(app, ["inspect", str(a), "--arena", corners])
    assert res.exit_code == 0, res.output
    assert "GPX" in res.output and "1 backwards" in res.output and "1 no_time" in res.output
    assert "(UTC)" in res.output and "box: south" in res.output and "gaps: 1" in res.output
    assert "enters the arena: yes" in res.output
    far = ",".join(str(v + 1.0) for c in ("sw", "nw", "ne", "se") for v in EXAMPLE_CORNERS[c])
    res = runner.invoke(app, ["inspect", "--json", str(a), "--arena", far])
    assert json.loads(res.output)["enters_arena"] is False
    res = runner.invoke(app, ["inspect", str(a), "--arena", "1,2,3"])
    assert res.exit_code == 2


def test_fit_too_many_records_is_the_same_refusal_from_both_readers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("fit_tool")
    from chukker.plays import fit

    monkeypatch.setattr(fit, "MAX_POINTS", 5)
    t, la, lo, _ = recording(rate_hz=1.0, ride_s=10.0, lines_s=0.0, pauses=())
    data = fit_bytes(t, la, lo)
    for reader in (fit.read_fit_fast, fit.read_fit_decode, fit.read_fit):
        with pytest.raises(DeviceError, match=r"^a\.fit: more than 5 points"):
            reader(data, "a.fit")


def test_plays_inspect_guard_a_bomb_among_the_files_is_refused_and_the_others_read(
        tmp_path: Path) -> None:
    """The command's door: called by the local user on his own files (no server); input
    capped per file (bytes, points, XML elements and segments, a FIT header's promise);
    a refused file never stops the others; it runs in its own process."""
    (tmp_path / "bomb.gpx").write_bytes(b'<gpx version="1.1"><trk>' + b"<trkseg/>" * 300_000
                                        + b"</trk></gpx>")
    good = _write(DeviceKind.GPX, tmp_path / "good.gpx", 1.0)
    res = runner.invoke(app, ["inspect", "--json", str(tmp_path / "bomb.gpx"), str(good)])
    assert res.exit_code == 1
    bomb, ok = (json.loads(x) for x in res.output.splitlines())
    assert "track segments" in bomb["refused"] and ok["kind"] == "gpx"
