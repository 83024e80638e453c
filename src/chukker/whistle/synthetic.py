"""Synthetic arena sound for the detector's tests and benchmark: nothing here is recorded.

Whistles (a three-chamber pea-less whistle, a pea whistle's trill, several pitches), the
arena horn, crowd, hooves, lip whistling and, with ``espeak-ng``, an announcer. Every
generator is seeded; :func:`scene` mixes them with whistles at known instants.

>>> x, truth = scene(16000, 6.0, seed=1, whistles=2)
>>> len(x), len(truth)
(96000, 2)
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]

#: three-chamber pea-less whistles: the chambers' tones in Hz (different pitches)
PEALESS = ((2650.0, 2930.0, 3240.0), (3050.0, 3380.0, 3700.0), (2200.0, 2450.0, 2760.0))
#: pea whistles: the tone in Hz and the trill rate
PEA = ((2800.0, 32.0), (3300.0, 26.0))


def _env(sr: int, dur: float, attack: float = 0.012, release: float = 0.03) -> Floats:
    n = int(sr * dur)
    t = np.arange(n) / sr
    e = np.minimum(1.0, t / attack) * np.minimum(1.0, (dur - t) / release)
    out: Floats = np.clip(e, 0.0, 1.0)
    return out


def pealess_whistle(sr: int, dur: float, tones: tuple[float, ...] = PEALESS[0],
                    seed: int = 0, attack: float = 0.012) -> Floats:
    """A pea-less whistle's blast: its chambers' tones at once, a little jitter, breath noise
    (``attack``: seconds from silence to full strength; a tired umpire's is 0.1-0.2)."""
    rng = np.random.default_rng(seed)
    n = int(sr * dur)
    t = np.arange(n) / sr
    out = np.zeros(n)
    for i, f in enumerate(tones):
        jit = 1 + 0.003 * np.sin(2 * math.pi * (3 + i) * t + rng.uniform(0, 6))
        ph = 2 * math.pi * np.cumsum(f * jit) / sr
        out += (1.0 - 0.2 * i) * np.sin(ph + rng.uniform(0, 6))
        out += 0.08 * np.sin(2 * ph)  # a weak second harmonic
    out += 0.05 * rng.standard_normal(n)
    return _norm(out * _env(sr, dur, attack))


def pea_whistle(sr: int, dur: float, tone: float = PEA[0][0], rate: float = PEA[0][1],
                seed: int = 0, attack: float = 0.012) -> Floats:
    """A pea whistle's blast: one tone, its amplitude and pitch trilled by the pea."""
    rng = np.random.default_rng(seed)
    n = int(sr * dur)
    t = np.arange(n) / sr
    trill = np.sin(2 * math.pi * rate * t + rng.uniform(0, 6))
    freq = tone * (1 + 0.02 * trill)
    ph = 2 * math.pi * np.cumsum(freq) / sr
    amp = 0.55 + 0.45 * trill
    out = amp * (np.sin(ph) + 0.15 * np.sin(2 * ph)) + 0.04 * rng.standard_normal(n)
    return _norm(out * _env(sr, dur, attack))


def lip_whistle(sr: int, dur: float, tone: float = 1900.0, seed: int = 0) -> Floats:
    """A spectator whistling with the lips: one pure tone, a slow vibrato, a gliding pitch."""
    rng = np.random.default_rng(seed)
    n = int(sr * dur)
    t = np.arange(n) / sr
    glide = 1 + 0.15 * np.sin(2 * math.pi * 0.7 * t + rng.uniform(0, 6))
    freq = tone * glide * (1 + 0.012 * np.sin(2 * math.pi * 5.5 * t))
    out = np.sin(2 * math.pi * np.cumsum(freq) / sr) + 0.01 * rng.standard_normal(n)
    return _norm(out * _env(sr, dur, 0.05, 0.08))


def horn(sr: int, dur: float, f0: float = 370.0) -> Floats:
    """The arena's horn: a loud buzz of many harmonics (two reeds a little apart)."""
    n = int(sr * dur)
    t = np.arange(n) / sr
    out = np.zeros(n)
    for f in (f0, f0 * 1.26):
        for h in range(1, int(min(sr / 2 - 200, 7000) / f)):
            out += np.sin(2 * math.pi * f * h * t) / h**0.9
    return _norm(np.tanh(1.5 * out / np.max(np.abs(out))) * _env(sr, dur, 0.02, 0.05))


def crowd(sr: int, dur: float, seed: int = 0) -> Floats:
    """A crowd: pink-ish noise that swells and ebbs, with bursts of cheering."""
    rng = np.random.default_rng(seed)
    n = int(sr * dur)
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / sr)
    shape = 1 / np.sqrt(np.maximum(f, 60.0)) * np.exp(-((f / 5000.0) ** 2))
    x = np.fft.irfft(spec * shape, n)
    t = np.arange(n) / sr
    swell = 0.6 + 0.4 * np.sin(2 * math.pi * 0.13 * t + rng.uniform(0, 6))
    return _norm(x * swell)


def hooves(sr: int, dur: float, seed: int = 0) -> Floats:
    """Galloping hooves on arena dirt: thuds in threes, a little dirt noise."""
    rng = np.random.default_rng(seed)
    n = int(sr * dur)
    out = np.zeros(n)
    thud_t = np.arange(int(0.08 * sr)) / sr
    thud = np.exp(-thud_t / 0.012) * np.sin(2 * math.pi * 90 * thud_t)
    click = np.exp(-thud_t / 0.002) * rng.standard_normal(len(thud_t))
    pos = 0.0
    while pos < dur:
        for k in range(3):
            i = int((pos + 0.07 * k) * sr)
            if i + len(thud) < n:
                out[i : i + len(thud)] += thud + 0.4 * click * rng.uniform(0.5, 1.0)
        pos += rng.uniform(0.33, 0.42)
    return _norm(out + 0.02 * rng.standard_normal(n))


@cache
def speech(sr: int, text: str = "Number two for Blue, a goal for the Reds, what a match",
           voice: str = "en") -> Floats:
    """An announcer's words, spoken by ``espeak-ng`` (``RuntimeError`` if it is missing)."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        raise RuntimeError("espeak-ng is not installed (apt-get install espeak-ng)")
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "s.wav"
        subprocess.run([exe, "-v", voice, "-s", "165", "-w", str(out), text], check=True,
                       capture_output=True, timeout=30)
        with wave.open(str(out), "rb") as w:
            rate = w.getframerate()
            y = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2") / 32768.0
    # to ``sr`` by linear interpolation (speech is under 8 kHz anyway)
    m = int(len(y) * sr / rate)
    return _norm(np.interp(np.arange(m) * rate / sr, np.arange(len(y)), y))


@cache
def announcer(sr: int, text: str = "Ladies and gentlemen, number three for the Blues scores "
              "again, what a run down the boards") -> Floats:
    """The announcer through the arena's PA: ``espeak-ng``'s voice made with ``sox`` into
    a loudspeaker's (250-4000 Hz, compressed, driven a little into distortion, echoing in
    the hall). ``RuntimeError`` if either is missing."""
    sox = shutil.which("sox")
    if sox is None:
        raise RuntimeError("sox is not installed (apt-get install sox)")
    y = speech(sr, text)
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "v.wav", Path(d) / "pa.wav"
        write_wav(src, 0.5 * y / np.max(np.abs(y)), sr)
        subprocess.run([sox, str(src), str(out), "highpass", "250", "lowpass", "4000",
                        "compand", "0.01,0.2", "-70,-70,-40,-20,0,-6", "-3", "overdrive", "8",
                        "reverb", "45", "50", "60"], check=True, capture_output=True, timeout=30)
        with wave.open(str(out), "rb") as w:
            ch = w.getnchannels()
            z = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2") / 32768.0
    return _norm(z.reshape(-1, ch).mean(axis=1))


def _norm(x: Floats) -> Floats:
    rms = float(np.sqrt(np.mean(x * x))) if len(x) else 0.0
    return x / rms if rms > 0 else x


def _add(dst: Floats, src: Floats, at: float, sr: int, gain: float) -> None:
    i = int(at * sr)
    j = min(len(dst), i + len(src))
    if j > i:
        dst[i:j] += gain * src[: j - i]


@dataclass(frozen=True, slots=True)
class Truth:
    """A whistle put into a scene: its onset (s), kind and duration."""

    at: float
    kind: str
    dur: float


def scene(sr: int, dur: float, seed: int = 0, whistles: int = 0, snr_db: float = 6.0,
          kinds: tuple[str, ...] = ("pealess", "pea"), voices: bool = False,
          distractors: bool = True, overlap: bool = True) -> tuple[Floats, list[Truth]]:
    """Arena sound with ``whistles`` blasts at known instants, ``snr_db`` whistle-to-noise
    power (the noise: crowd and hooves; horns, lip whistles and, with ``voices``, speech
    come on top, over a whistle too unless ``overlap`` is false). Scaled to a peak of 0.9."""
    rng = np.random.default_rng(seed)
    n = int(sr * dur)
    bed = 0.7 * crowd(sr, dur, seed) + 0.5 * hooves(sr, dur, seed + 1)
    x = _norm(bed)  # the noise has power 1
    others = np.zeros(n)
    extra: list[tuple[float, Floats, float]] = []
    if distractors:
        t = rng.uniform(0.5, 3.0)
        while t < dur - 1.5:
            what = rng.choice(["horn", "lip", "speech" if voices else "lip"])
            if what == "horn":
                extra.append((t, horn(sr, rng.uniform(0.8, 1.8), rng.uniform(250, 480)), 1.5))
            elif what == "lip":
                extra.append((t, lip_whistle(sr, rng.uniform(0.6, 1.8), rng.uniform(1200, 3200),
                                             int(rng.integers(1 << 30))), 1.0))
            else:
                extra.append((t, speech(sr), 1.2))
            t += rng.uniform(4.0, 9.0)
    truth: list[Truth] = []
    if whistles:
        slots = np.linspace(0.8, dur - 1.2, whistles + 1)[:-1]
        step = (dur - 2.0) / whistles
        gain = 10 ** (snr_db / 20)
        for k, s in enumerate(slots):
            at = round(float(s + rng.uniform(0, max(0.0, step - 1.0))), 3)
            kind = kinds[k % len(kinds)]
            d = float(rng.uniform(0.3, 0.9))
            sd = int(rng.integers(1 << 30))
            if kind == "pea":
                tone, rate = PEA[k % len(PEA)]
                w = pea_whistle(sr, d, tone, rate, sd)
            else:
                w = pealess_whistle(sr, d, PEALESS[k % len(PEALESS)], sd)
            _add(others, w, at, sr, gain)
            truth.append(Truth(at, kind, d))
    for t, w, g in extra:
        end = t + len(w) / sr
        if overlap or not any(t - 0.3 < u.at + u.dur and u.at - 0.3 < end for u in truth):
            _add(others, w, t, sr, g)
    x = x + others
    return 0.9 * x / np.max(np.abs(x)), truth


def blasts(sr: int, tones: tuple[float, ...] = PEALESS[0], count: int = 3, seed: int = 0,
           pea: tuple[float, float] | None = None) -> Floats:
    """A calibration recording: ``count`` blasts of one whistle in a quiet room."""
    rng = np.random.default_rng(seed)
    parts = [0.01 * rng.standard_normal(int(0.5 * sr))]
    for k in range(count):
        d = float(rng.uniform(0.4, 0.8))
        w = pea_whistle(sr, d, *pea, seed=k) if pea else pealess_whistle(sr, d, tones, k)
        parts += [0.3 * w, 0.01 * rng.standard_normal(int(0.6 * sr))]
    return np.concatenate(parts)


def write_wav(path: Path, x: Floats, sr: int, channels: int = 1) -> None:
    """``x`` as 16-bit PCM (the same samples in every channel)."""
    pcm = (np.clip(x, -1.0, 1.0) * 32767).astype("<i2")
    if channels > 1:
        pcm = np.repeat(pcm[:, None], channels, axis=1).reshape(-1)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(pcm.tobytes())


#: what can sit on a whistle, for :func:`over`; and two cases of the whistle itself
OVERLAYS = ("speech", "crowd", "hooves", "horn", "announcer")
CASES = ("two whistles 0.4 s apart", "slow attack")


def whistle(sr: int, k: int, dur: float, seed: int, attack: float = 0.012) -> Floats:
    """The ``k``-th whistle of the corpus: pea-less in three pitches, then pea, in turn."""
    if k % 5 >= 3:
        tone, rate = PEA[k % 2]
        return pea_whistle(sr, dur, tone, rate, seed, attack)
    return pealess_whistle(sr, dur, PEALESS[k % 5], seed, attack)


def over(sr: int, what: str, snr_db: float, seed: int = 0) -> tuple[Floats, list[float]]:
    """A 3.5 s scene: a whistle with ``what`` (one of :data:`OVERLAYS`) over it at
    ``snr_db`` whistle-to-overlay power over the blast, or one of :data:`CASES` in a crowd
    at that ratio; over a faint crowd (20 dB under the whistle). (samples, onsets)

    ``speech`` and ``announcer`` start 0.1-0.5 s before the onset and talk on through it
    (the overlapping speech at the onset itself); the ``horn`` starts 0.1-0.5 s before the
    whistle and ends 0.1-0.4 s after it."""
    rng = np.random.default_rng(seed)
    n = int(sr * 3.5)
    at = round(float(rng.uniform(1.0, 1.3)), 3)
    d = float(rng.uniform(0.4, 1.1))
    sd = int(rng.integers(1 << 30))
    k = int(rng.integers(5))
    x = np.zeros(n)
    ats = [at]
    if what == CASES[0]:  # two short blasts, 0.4 s of silence between them
        d = float(rng.uniform(0.25, 0.4))
        w = whistle(sr, k, d, sd)
        ats.append(round(at + d + 0.4, 3))
        for t in ats:
            _add(x, w, t, sr, 1.0)
    else:
        w = whistle(sr, k, d, sd, 0.15 if what == CASES[1] else 0.012)
        _add(x, w, at, sr, 1.0)
    lo, hi = int(at * sr), int((ats[-1] + d) * sr)
    if what in ("speech", "announcer"):
        texts = ("Number two for Blue, a goal for the Reds, what a match",
                 "And the ball goes long, Garcia takes it on the near side boards",
                 "Time out on the field, the score is four to three")
        lead = float(rng.uniform(0.1, 0.5))
        v = speech(sr, texts[seed % 3]) if what == "speech" else announcer(sr)
        start = max(0, int((at - lead) * sr))
        # talk through the blast: begin inside the words (not in a pause before them)
        v = v[int(rng.uniform(0.2, 0.6) * sr) :]
        o = np.zeros(n)
        o[start : start + len(v)] = v[: n - start]
    elif what == "horn":
        t0 = at - float(rng.uniform(0.1, 0.5))
        t1 = ats[-1] + d + float(rng.uniform(0.1, 0.4))
        o = np.zeros(n)
        _add(o, horn(sr, t1 - t0, float(rng.uniform(250, 480))), t0, sr, 1.0)
    elif what == "hooves":
        o = hooves(sr, 3.5, seed)
    else:
        o = crowd(sr, 3.5, seed)
    p_w = float(np.mean(x[lo:hi] ** 2))
    p_o = max(float(np.mean(o[lo:hi] ** 2)), 1e-12)
    o *= math.sqrt(p_w / p_o) * 10 ** (-snr_db / 20)
    bed = crowd(sr, 3.5, seed + 7) * math.sqrt(p_w) * 0.1
    y = x + o + bed
    return 0.9 * y / np.max(np.abs(y)), ats
