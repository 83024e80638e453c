"""Reading a WAV file for the detector, within limits, a window at a time.

The header is walked chunk by chunk (skipped chunks are seeked over, never read), and the
samples are read ``block`` frames at a time: memory is bounded by that window, not by the
file. Anything that is not a whole WAV file of 16-48 kHz mono or stereo audio (a header
without samples, thousands of chunks, a ``fmt`` chunk claiming gigabytes, a file cut short)
is a :class:`WavError` whose message is one line saying why.

>>> import io, wave
>>> b = io.BytesIO()
>>> with wave.open(b, "wb") as w:
...     w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000); w.writeframes(b"\\0\\0" * 160)
>>> x, sr = read_wav(io.BytesIO(b.getvalue()))
>>> len(x), sr
(160, 16000)
>>> read_wav(io.BytesIO(b"RIFF....not a wave"))
Traceback (most recent call last):
...
chukker.whistle.wav.WavError: not a WAV file (no RIFF/WAVE header)
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy.typing import NDArray

#: the largest file read (bytes): about 3 hours of 16-bit mono at 48 kHz. Memory does not
#: grow with it (the samples are read a window at a time); the time does (about 1 s a minute)
MAX_BYTES = 1 << 30
RATES = (16000, 48000)
MAX_CHANNELS = 2
#: chunks before the samples (a real file has a handful: fmt, fact, LIST, bext, JUNK)
MAX_CHUNKS = 64
#: a fmt chunk is 16, 18 or 40 bytes
MAX_FMT_BYTES = 64
#: frames read at a time
BLOCK = 1 << 16

PCM, FLOAT, EXTENSIBLE = 1, 3, 0xFFFE


class WavError(ValueError):
    """A file the detector does not read; its message is one line saying why."""


@dataclass(frozen=True, slots=True)
class WavInfo:
    """What the header says: rate, channels, sample type, where the samples are."""

    sr: int
    channels: int
    dtype: str  # a NumPy dtype string, e.g. "<i2", ">f4", "u1", or "<i3" (24-bit)
    offset: int
    frames: int


def _fmt(body: bytes, big: bool) -> tuple[int, int, int, int]:
    """(format tag, channels, rate, bits per sample) of a fmt chunk's body."""
    e = ">" if big else "<"
    if len(body) < 16:
        raise WavError(f"not a WAV file (a fmt chunk of {len(body)} bytes; it needs 16)")
    tag, ch, sr, _, _, bits = struct.unpack(e + "HHIIHH", body[:16])
    if tag == EXTENSIBLE:
        if len(body) < 40:
            raise WavError("not a WAV file (an extensible fmt chunk shorter than 40 bytes)")
        tag = struct.unpack(e + "H", body[24:26])[0]
    return tag, ch, sr, bits


def _dtype(tag: int, bits: int, big: bool) -> str:
    e = ">" if big else "<"
    if tag == PCM and bits in (8, 16, 24, 32):
        return "u1" if bits == 8 else f"{e}i{bits // 8}"
    if tag == FLOAT and bits in (32, 64):
        return f"{e}f{bits // 8}"
    raise WavError(f"sample format {tag} with {bits} bits: only PCM 8-32 bit or float is read")


def probe(fh: BinaryIO, size: int) -> WavInfo:
    """The header of the WAV file open in ``fh`` (``size`` bytes long); ``WavError`` if it
    is not one this detector reads. Reads at most a few kilobytes."""
    head = fh.read(12)
    if len(head) < 12 or head[:4] not in (b"RIFF", b"RIFX") or head[8:12] != b"WAVE":
        raise WavError("not a WAV file (no RIFF/WAVE header)")
    big = head[:4] == b"RIFX"
    e = ">" if big else "<"
    pos = 12
    fmt: tuple[int, int, int, int] | None = None
    for _ in range(MAX_CHUNKS):
        hdr = fh.read(8)
        if len(hdr) < 8:
            what = "no data chunk" if fmt else "no fmt chunk"
            raise WavError(f"not a WAV file ({what}: a header without samples)")
        cid = hdr[:4]
        (length,) = struct.unpack(e + "I", hdr[4:])
        pos += 8
        name = cid.decode("latin-1").strip() or "unnamed"
        if not all(32 <= c < 127 for c in cid):
            raise WavError(f"not a WAV file (a chunk with a binary name at byte {pos - 8})")
        if cid == b"data":
            if fmt is None:
                raise WavError("not a WAV file (the samples come before the fmt chunk)")
            tag, ch, sr, bits = fmt
            if ch < 1:
                raise WavError("not a WAV file (0 channels)")
            if ch > MAX_CHANNELS:
                raise WavError(f"{ch} channels: only mono or stereo is read")
            if not RATES[0] <= sr <= RATES[1]:
                raise WavError(f"sample rate {sr} Hz: only {RATES[0]}-{RATES[1]} Hz is read")
            dt = _dtype(tag, bits, big)
            width = ch * (bits // 8)
            if length > size - pos:
                raise WavError(f"truncated: the data chunk claims {length} bytes, the file "
                               f"holds {max(0, size - pos)} after its header")
            if length // width == 0:
                raise WavError("no samples")
            return WavInfo(sr, ch, dt, pos, length // width)
        if cid == b"fmt ":
            if not 16 <= length <= MAX_FMT_BYTES:
                raise WavError(f"not a WAV file (its fmt chunk claims {length} bytes; a format "
                               f"is 16-40)")
            body = fh.read(length)
            if len(body) < length:
                raise WavError("truncated: the file ends inside its fmt chunk")
            fmt = _fmt(body, big)
        else:
            if length > size - pos:
                raise WavError(f"truncated: its {name!r} chunk claims {length} bytes, the file "
                               f"holds {max(0, size - pos)} after it")
            fh.seek(length + (length & 1), os.SEEK_CUR)
            pos += length & 1
        pos += length
    raise WavError(f"not a WAV file (more than {MAX_CHUNKS} chunks before its samples)")


def _to_float(raw: bytes, info: WavInfo) -> NDArray[np.float64]:
    if info.dtype[-2:] == "i3":  # 24-bit: widen each sample to 32
        b = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 3)
        pad = np.zeros((len(b), 4), dtype=np.uint8)
        if info.dtype[0] == ">":
            pad[:, :3] = b
            v = pad.view(">i4").reshape(-1)
        else:
            pad[:, 1:] = b
            v = pad.view("<i4").reshape(-1)
        x = v.astype(np.float64) / 2147483648.0
    else:
        a = np.frombuffer(raw, dtype=info.dtype)
        if a.dtype.kind == "f":
            x = a.astype(np.float64)
            if not np.all(np.isfinite(x)):
                raise WavError("samples that are not numbers")
        elif a.dtype == np.uint8:
            x = (a.astype(np.float64) - 128.0) / 128.0
        else:
            x = a.astype(np.float64) / float(-np.iinfo(a.dtype).min)
    if info.channels > 1:
        x = x.reshape(-1, info.channels).mean(axis=1)
    out: NDArray[np.float64] = np.clip(x, -1.0, 1.0)
    return out


def blocks(fh: BinaryIO, info: WavInfo, block: int = BLOCK) -> Iterator[NDArray[np.float64]]:
    """The samples (mono, -1..1), ``block`` frames at a time."""
    width = info.channels * int(info.dtype[-1])
    fh.seek(info.offset)
    left = info.frames
    while left > 0:
        k = min(block, left)
        raw = fh.read(k * width)
        if len(raw) < k * width:
            raise WavError(f"truncated: the file ended {left - len(raw) // width} frames "
                           f"before its data chunk's end")
        left -= k
        yield _to_float(raw, info)


def _size(fh: BinaryIO) -> int:
    here = fh.tell()
    end = fh.seek(0, os.SEEK_END)
    fh.seek(here)
    return end


def open_wav(path: Path, max_bytes: int = MAX_BYTES) -> tuple[BinaryIO, WavInfo]:
    """The open file and its header (close the file when done); ``WavError`` if refused."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it
    except OSError as e:
        raise WavError(f"cannot read {path}: {e.strerror}") from None
    try:
        size = _size(fh)
        if size > max_bytes:
            raise WavError(f"too large: {size} bytes (at most {max_bytes})")
        return fh, probe(fh, size)
    except BaseException:
        fh.close()
        raise


def read_wav(src: Path | BinaryIO, max_bytes: int = MAX_BYTES) -> tuple[NDArray[np.float64], int]:
    """All the samples (mono, -1..1) and the rate of a WAV file; ``WavError`` for anything
    else. (The commands stream with :func:`open_wav` and :func:`blocks` instead.)"""
    if isinstance(src, Path):
        fh, info = open_wav(src, max_bytes)
        with fh:
            return np.concatenate(list(blocks(fh, info))), info.sr
    size = _size(src)
    if size > max_bytes:
        raise WavError(f"too large: more than {max_bytes} bytes")
    info = probe(src, size)
    return np.concatenate(list(blocks(src, info))), info.sr
