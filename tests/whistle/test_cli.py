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
    assert code == 1
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
    assert code == 1 and "needs 3 or more" in err
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize("content", [b"{", b"[]", b"x" * 70_000])
def test_rule_5_detect_refuses_a_bad_profile_in_one_line(
        files: dict[str, Path], tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "p.json"
    p.write_bytes(content)
    code, _, err = run("detect", str(files["scene"]), "--profile", str(p))
    assert code == 1 and len(err.strip().splitlines()) == 1


def test_rule_5_wav_formats_float_24_bit_and_stereo_are_read(tmp_path: Path) -> None:
    from scipy.io import wavfile

    x = (0.5 * np.sin(np.arange(SR) * 0.1)).astype(np.float32)
    f = tmp_path / "f.wav"
    wavfile.write(f, 44100, np.stack([x, x], axis=1))
    y, sr = read_wav(f)
    assert sr == 44100 and len(y) == SR and abs(float(y.max()) - 0.5) < 0.01


def _chunk(cid: bytes, body: bytes, claim: int | None = None) -> bytes:
    n = len(body) if claim is None else claim
    return cid + n.to_bytes(4, "little") + body + (b"\0" if len(body) % 2 else b"")


FMT16 = (1).to_bytes(2, "little") + (1).to_bytes(2, "little") + (16000).to_bytes(4, "little") \
    + (32000).to_bytes(4, "little") + (2).to_bytes(2, "little") + (16).to_bytes(2, "little")


def _riff(*chunks: bytes) -> bytes:
    body = b"WAVE" + b"".join(chunks)
    return b"RIFF" + len(body).to_bytes(4, "little") + body


@pytest.mark.parametrize(("data", "why"), [
    (_riff(_chunk(b"fmt ", FMT16)), "a header without samples"),
    (_riff(), "a header without samples"),
    (_riff(*[_chunk(b"JUNK", b"x" * 3)] * 5000, _chunk(b"fmt ", FMT16),
           _chunk(b"data", b"\0" * 3200)), "more than 64 chunks"),
    (_riff(_chunk(b"fmt ", b"", claim=0x7FFFFFF0)), "fmt chunk claims 2147483632 bytes"),
    (_riff(_chunk(b"fmt ", FMT16), _chunk(b"data", b"\0" * 3200, claim=32000)), "truncated"),
    (_wav_bytes(1, 16000, frames=16000)[:-5000], "truncated"),
    (_riff(_chunk(b"LIST", b"", claim=1 << 30)), "truncated"),
    (_riff(_chunk(b"data", b"\0" * 320), _chunk(b"fmt ", FMT16)), "before the fmt chunk"),
])
def test_rule_5_a_malformed_wav_is_refused_in_one_line_exit_1(
        tmp_path: Path, data: bytes, why: str) -> None:
    f = tmp_path / "bad.wav"
    f.write_bytes(data)
    for cmd in (["detect", str(f)], ["calibrate", str(f), "-o", str(tmp_path / "p.json")]):
        code, _, err = run(*cmd)
        lines = [ln for ln in err.splitlines() if "default" not in ln]
        assert code == 1 and len(lines) == 1 and why in lines[0], err
    assert not (tmp_path / "p.json").exists()


class _Endless(io.RawIOBase):
    """A 190 MB WAV file that is not in memory: its header, then zeros; it notes each read."""

    def __init__(self, size: int) -> None:
        self.head = _riff(_chunk(b"fmt ", FMT16), b"data" + (size - 44).to_bytes(4, "little"))
        self.size, self.pos, self.reads = size, 0, [0]

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, off: int, whence: int = 0) -> int:
        self.pos = [off, self.pos + off, self.size + off][whence]
        return self.pos

    def tell(self) -> int:
        return self.pos

    def read(self, n: int = -1) -> bytes:
        n = min(n, self.size - self.pos)
        self.reads.append(n)
        out = (self.head[self.pos : self.pos + n]).ljust(n, b"\0")
        self.pos += n
        return out


def test_rule_5_memory_is_bounded_by_the_read_window_not_the_file() -> None:
    from chukker.whistle import wav
    from chukker.whistle.detector import Stream

    src = _Endless(190 * 1000 * 1000)
    info = wav.probe(src, src.size)  # type: ignore[arg-type]
    assert info.frames == (src.size - 44) // 2
    stream = Stream(info.sr)
    for k, block in enumerate(wav.blocks(src, info)):  # type: ignore[arg-type]
        stream.push(block)
        if k == 20:  # 84 s of audio: enough to see the window does not grow
            break
    assert max(src.reads) <= wav.BLOCK * 2
    assert len(stream.rest) < stream.g.n


def _sine(path: Path, hz: float = 2000.0) -> None:
    t = np.arange(int(SR * 1.0)) / SR
    x = np.zeros(SR * 3)
    x[SR : 2 * SR] = 0.5 * np.sin(2 * np.pi * hz * t)
    S.write_wav(path, x, SR)


def test_rule_5_a_sine_burst_is_answered_why_it_is_no_whistle(tmp_path: Path) -> None:
    f = tmp_path / "sine.wav"
    _sine(f)
    code, out, _ = run("detect", str(f))
    assert code == 0 and "0 blast(s)." in out
    assert "one steady tone (about 2000 Hz)" in out and "lips" in out
    assert "Record the umpire's own whistle" in out
    code, _, err = run("calibrate", str(f), "-o", str(tmp_path / "p.json"))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "needs 3 or more" in err and "one steady tone" in err


def test_rule_5_no_hint_when_the_file_is_not_one_tone(
        tmp_path: Path) -> None:
    f = tmp_path / "noise.wav"
    S.write_wav(f, 0.1 * S.crowd(SR, 2.0), SR)
    code, out, _ = run("detect", str(f))
    assert code == 0 and out.strip() == "0 blast(s)."
