"""``chukker whistle calibrate|detect``: WAV in (16-48 kHz, mono or stereo), anything else
refused in one line; the guard of a new door: the input's size is capped, and the command
reads only the files it is given."""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from chukker.cli import build_app
from chukker.whistle import synthetic as S
from chukker.whistle.wav import WavError, read_wav

runner = CliRunner()
SR = 16000


def run(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(build_app(["whistle"]), ["whistle", *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("wav")
    out = {"cal": d / "cal.wav", "scene": d / "scene.wav"}
    S.write_wav(out["cal"], S.blasts(SR, S.PEALESS[0], 3), SR, channels=2)
    x = np.zeros(SR * 5)
    for at in (1.0, 3.0):
        w = 0.3 * S.pealess_whistle(SR, 0.5, S.PEALESS[0], int(at))
        x[int(at * SR) : int(at * SR) + len(w)] += w
    S.write_wav(out["scene"], x + 0.003 * np.random.default_rng(0).standard_normal(len(x)), SR)
    return out


def test_rule_5_calibrate_says_the_tones_and_blasts_and_writes_a_profile(
        files: dict[str, Path], tmp_path: Path) -> None:
    prof = tmp_path / "p.json"
    code, out, _ = run("calibrate", str(files["cal"]), "-o", str(prof))
    assert code == 0, out
    assert "a pea-less whistle: tones " in out
    assert "3 blasts used" in out
    d = json.loads(prof.read_text())
    assert d["format"] == "chukker-whistle-profile" and len(d["tones_hz"]) == 3
    code, out, _ = run("detect", str(files["scene"]), "--profile", str(prof), "--json")
    assert code == 0
    got = json.loads(out)
    assert [round(b["at"], 1) for b in got] == [1.0, 3.0]
    assert all(set(b) == {"at", "score"} for b in got)


def test_rule_5_detect_without_a_profile_uses_the_default_and_says_so(
        files: dict[str, Path]) -> None:
    code, out, err = run("detect", str(files["scene"]))
    assert code == 0
    assert "default" in err and "2 blast(s)." in out


def _wav_bytes(channels: int, rate: int, width: int = 2, frames: int = 1600) -> bytes:
    b = io.BytesIO()
    with wave.open(b, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(b"\0" * frames * channels * width)
    return b.getvalue()


@pytest.mark.parametrize(("data", "why"), [
    (_wav_bytes(8, 48000), "8 channels"),
    (_wav_bytes(1, 8000), "sample rate 8000 Hz"),
    (_wav_bytes(2, 96000), "sample rate 96000 Hz"),
    (b"GIF89a" + b"\0" * 100, "not a WAV file"),
    (b"RIFF\x10\0\0\0WAVEfmt \x02\0\0\0", "not a WAV file"),
    (_wav_bytes(1, 16000, frames=0), "no samples"),
])
def test_rule_5_detect_refuses_what_it_does_not_read_in_one_line(
        tmp_path: Path, data: bytes, why: str) -> None:
    f = tmp_path / "x.wav"
    f.write_bytes(data)
    code, _, err = run("detect", str(f))
    assert code == 2
    lines = [ln for ln in err.splitlines() if "default" not in ln]
    assert len(lines) == 1 and why in lines[0], err


def test_rule_5_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    f = tmp_path / "big.wav"
    f.write_bytes(_wav_bytes(1, 16000))
    with pytest.raises(WavError, match="too large"):
        read_wav(f, max_bytes=1000)
    with pytest.raises(WavError, match="too large"):
        read_wav(io.BytesIO(_wav_bytes(1, 16000)), max_bytes=1000)


def test_rule_5_calibrate_refuses_a_recording_without_three_blasts(
        tmp_path: Path) -> None:
    f = tmp_path / "two.wav"
    S.write_wav(f, S.blasts(SR, count=2), SR)
    code, _, err = run("calibrate", str(f), "-o", str(tmp_path / "p.json"))
    assert code == 2 and "needs 3 or more" in err
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize("content", [b"{", b"[]", b"x" * 70_000])
def test_rule_5_detect_refuses_a_bad_profile_in_one_line(
        files: dict[str, Path], tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "p.json"
    p.write_bytes(content)
    code, _, err = run("detect", str(files["scene"]), "--profile", str(p))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_rule_5_wav_formats_float_24_bit_and_stereo_are_read(tmp_path: Path) -> None:
    from scipy.io import wavfile

    x = (0.5 * np.sin(np.arange(SR) * 0.1)).astype(np.float32)
    f = tmp_path / "f.wav"
    wavfile.write(f, 44100, np.stack([x, x], axis=1))
    y, sr = read_wav(f)
    assert sr == 44100 and len(y) == SR and abs(float(y.max()) - 0.5) < 0.01
