"""Reading a WAV file for the detector, within limits: 16-48 kHz, mono or stereo, a size cap.

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

import io
import os
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numpy.typing import NDArray
from scipy.io import wavfile  # type: ignore[import-untyped]

#: the largest file read (bytes): 3 hours of 16-bit stereo at 16 kHz, 18 min at 48 kHz
MAX_BYTES = 200 * 1024 * 1024
RATES = (16000, 48000)
MAX_CHANNELS = 2


class WavError(ValueError):
    """A file the detector does not read; its message is one line saying why."""


def read_wav(src: Path | BinaryIO, max_bytes: int = MAX_BYTES) -> tuple[NDArray[np.float64], int]:
    """The samples (mono, -1..1) and rate of a WAV file; ``WavError`` for anything else."""
    if isinstance(src, Path):
        try:
            size = os.stat(src).st_size
        except OSError as e:
            raise WavError(f"cannot read {src}: {e.strerror}") from None
        if size > max_bytes:
            raise WavError(f"too large: {size} bytes (at most {max_bytes})")
        with open(src, "rb") as fh:
            data = fh.read(max_bytes + 1)
    else:
        data = src.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise WavError(f"too large: more than {max_bytes} bytes")
    if data[:4] not in (b"RIFF", b"RIFX") or data[8:12] != b"WAVE":
        raise WavError("not a WAV file (no RIFF/WAVE header)")
    try:
        sr, raw = wavfile.read(io.BytesIO(data))
    except (ValueError, EOFError, OSError, IndexError, TypeError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise WavError(f"not a WAV file ({msg})") from None
    ch = 1 if raw.ndim == 1 else raw.shape[1]
    if ch > MAX_CHANNELS:
        raise WavError(f"{ch} channels: only mono or stereo is read")
    if not RATES[0] <= sr <= RATES[1]:
        raise WavError(f"sample rate {sr} Hz: only {RATES[0]}-{RATES[1]} Hz is read")
    if raw.dtype.kind == "f":
        x = raw.astype(np.float64)
    elif raw.dtype == np.uint8:
        x = (raw.astype(np.float64) - 128.0) / 128.0
    elif raw.dtype.kind == "i":
        x = raw.astype(np.float64) / float(-np.iinfo(raw.dtype).min)
    else:
        raise WavError(f"sample format {raw.dtype} is not audio")
    if x.ndim == 2:
        x = x.mean(axis=1)
    if len(x) == 0:
        raise WavError("no samples")
    if not np.all(np.isfinite(x)):
        raise WavError("samples that are not numbers")
    return np.clip(x, -1.0, 1.0), int(sr)
