"""The whistle detector: an umpire's whistle in arena sound, and the onset of each blast.

The algorithm and its numbers are defined once: the numbers in ``params.json`` (read here
and by the console's ``static/whistle-worklet.js``), the steps below, which the worklet
repeats line for line (``tests/whistle/test_parity.py`` feeds both the same audio).

Per frame (``frame_s`` long, Hann window, every ``hop_s``):

1. the frame's level; below ``min_level_db`` nothing is heard;
2. the power spectrum; the tonal peaks in the profile's band (local maxima
   ``peak_prominence_db`` above the band's median);
3. peaks that are harmonics of the strongest low tone (a horn, a voice) are dropped, and so
   are octaves of a stronger peak;
4. the strongest peak and its neighbours within ``cluster_ratio``, at least
   ``min_tone_gap_hz`` apart, are the frame's tones. Two or more (not a harmonic series):
   a pea-less whistle (``multi``). One, whose amplitude jumps between the frame's
   ``trill_blocks`` sub-blocks by ``trill_min`` or more: a pea whistle's trill (``trill``).
   One steady tone (a lip whistle) is neither;
5. with a calibrated profile, the tones must be the profile's (``profile_tolerance``).

A blast starts after ``min_frames`` whistle frames (gaps of ``hold_frames`` forgiven); its
onset is the centre of its first frame; it ends after ``gap_frames`` without one.

>>> import numpy as np
>>> from chukker.whistle.synthetic import pealess_whistle
>>> sr = 16000
>>> x = np.zeros(sr * 2)
>>> x[sr // 2 : sr // 2 + len(w := pealess_whistle(sr, 0.6))] += w
>>> [round(b.at, 2) for b in detect(x, sr)]
[0.5]
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]
KINDS = ("multi", "trill")


@cache
def params() -> dict[str, Any]:
    """The detector's parameters (``params.json``), shared with the browser."""
    text = resources.files("chukker.whistle").joinpath("params.json").read_text("utf-8")
    out: dict[str, Any] = json.loads(text)
    return out


@dataclass(frozen=True, slots=True)
class Profile:
    """What whistle to listen for: its kinds, band and (once calibrated) tones in Hz."""

    name: str
    kinds: tuple[str, ...] = KINDS
    band_hz: tuple[float, float] = (1800.0, 4600.0)
    tones_hz: tuple[float, ...] = ()
    blasts: tuple[float, ...] = ()

    @classmethod
    def default(cls) -> Profile:
        d = params()["default_profile"]
        return cls(d["name"], tuple(d["kinds"]), (float(d["band_hz"][0]), float(d["band_hz"][1])),
                   tuple(float(t) for t in d["tones_hz"]))

    def to_json(self) -> dict[str, Any]:
        return {"format": "chukker-whistle-profile", "version": 1, "name": self.name,
                "kinds": list(self.kinds), "band_hz": list(self.band_hz),
                "tones_hz": [round(t, 1) for t in self.tones_hz],
                "blasts": [round(b, 3) for b in self.blasts]}

    @classmethod
    def from_json(cls, d: Any) -> Profile:
        """A profile from its JSON; ``ValueError`` saying what is wrong."""
        if not isinstance(d, dict) or d.get("format") != "chukker-whistle-profile":
            raise ValueError("not a chukker whistle profile (no \"format\": "
                             "\"chukker-whistle-profile\")")
        try:
            kinds = tuple(str(k) for k in d["kinds"])
            lo, hi = (float(v) for v in d["band_hz"])
            tones = tuple(float(t) for t in d["tones_hz"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"whistle profile: missing or bad field ({e})") from None
        if not kinds or any(k not in KINDS for k in kinds):
            raise ValueError(f"whistle profile: kinds must be among {list(KINDS)}")
        lo_p, hi_p = params()["band_hz"]
        if not (lo_p <= lo < hi <= hi_p) or len(tones) > 8 or any(
                not lo <= t <= hi for t in tones):
            raise ValueError(f"whistle profile: band and tones must lie in {lo_p}-{hi_p} Hz")
        return cls(str(d.get("name", "calibrated"))[:80], kinds, (lo, hi), tones)


@dataclass(frozen=True, slots=True)
class Blast:
    """A whistle's onset (seconds from the start) and its score (share of whistle frames)."""

    at: float
    score: float
    tones_hz: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame's verdict: ``kind`` is ``multi``, ``trill`` or ``""``."""

    kind: str
    tones_hz: tuple[float, ...] = ()


@dataclass(slots=True)
class Geometry:
    """The frame size, hop and bins of a sample rate."""

    sr: int
    n: int
    hop: int
    window: Floats = field(repr=False)
    band: tuple[int, int]
    low: tuple[int, int]

    @classmethod
    def of(cls, sr: int, profile: Profile) -> Geometry:
        p = params()
        n = 1 << math.ceil(math.log2(sr * p["frame_s"]))
        hop = round(sr * p["hop_s"])
        i = np.arange(n, dtype=np.float64)
        window = 0.5 - 0.5 * np.cos(2 * math.pi * i / n)
        b0 = math.ceil(profile.band_hz[0] * n / sr)
        b1 = math.floor(profile.band_hz[1] * n / sr)
        l0 = math.ceil(p["low_band_hz"][0] * n / sr)
        l1 = math.floor(p["low_band_hz"][1] * n / sr)
        return cls(sr, n, hop, window, (b0, b1), (l0, l1))


def _interp(pw: Floats, k: int) -> float:
    """The peak's bin, refined by a parabola through the log powers of k-1, k, k+1."""
    a, b, c = (math.log(pw[k - 1] + 1e-30), math.log(pw[k] + 1e-30), math.log(pw[k + 1] + 1e-30))
    den = a - 2 * b + c
    return k + (0.5 * (a - c) / den if den < 0 else 0.0)


def _median(v: Floats) -> float:
    return float(np.median(v))


def classify(frame: Floats, pw: Floats, g: Geometry, profile: Profile) -> Frame:
    """One frame's verdict (``pw``: the Hann-windowed power spectrum of ``frame``)."""
    p = params()
    b0, b1 = g.band
    floor = float(np.sum(pw)) * 10 ** (p["floor_db"] / 10)
    noise = max(_median(pw[b0 : b1 + 1]), floor)
    thr = noise * 10 ** (p["peak_prominence_db"] / 10)
    peaks: list[tuple[float, float, int]] = []  # (power, Hz, bin)
    for k in range(b0, b1 + 1):
        v = pw[k]
        if v > thr and v > pw[k - 1] and v >= pw[k + 1]:
            peaks.append((float(v), _interp(pw, k) * g.sr / g.n, k))
    if not peaks:
        return Frame("")
    peaks.sort(key=lambda t: -t[0])
    peaks = peaks[: p["max_peaks"]]
    # the strongest low tones (a horn's reeds, a voice): their harmonics are not a whistle
    l0, l1 = g.low
    low = pw[l0 : l1 + 1]
    low_power = float(np.sum(low))
    lthr = max(_median(low), floor) * 10 ** (p["low_prominence_db"] / 10)
    lows: list[tuple[float, int]] = []
    for k in range(l0, l1 + 1):
        v = pw[k]
        if v > lthr and v > pw[k - 1] and v >= pw[k + 1]:
            lows.append((float(v), k))
    lows.sort(key=lambda t: -t[0])
    for _, k in lows[: p["low_tones"]]:
        f_low = _interp(pw, k) * g.sr / g.n
        tol = p["harmonic_tolerance"] * f_low
        peaks = [t for t in peaks if not (2 <= round(t[1] / f_low) <= p["max_harmonic"]
                                          and abs(t[1] - round(t[1] / f_low) * f_low) < tol)]
    # a voice's or a horn's fundamental: the spacing of its harmonics, low or in the band
    for (a, b), least in (((l0, l1), 3), ((b0, b1), p["comb_peaks"])):
        f0 = _comb(pw, a, b, g, p, least, floor)
        if f0 > 0:
            tol = p["harmonic_tolerance"] * f0
            peaks = [t for t in peaks if abs(t[1] - round(t[1] / f0) * f0) >= tol]
    if not peaks:
        return Frame("")
    top = peaks[0]
    tones: list[tuple[float, float, int]] = [top]
    r = p["cluster_ratio"]
    for t in peaks[1:]:
        if not top[1] / r <= t[1] <= top[1] * r:
            continue
        if any(abs(t[1] - u[1]) < p["min_tone_gap_hz"] for u in tones):
            continue
        if any(abs(t[1] / u[1] - round(t[1] / u[1])) < p["octave_tolerance"] * t[1] / u[1]
               and round(t[1] / u[1]) >= 2 for u in tones):
            continue
        tones.append(t)
    tone_power = sum(float(pw[k - 1] + pw[k] + pw[k + 1]) for _, _, k in tones)
    if tone_power < low_power * 10 ** (p["min_tone_to_low_db"] / 10):
        return Frame("")
    hz = tuple(sorted(t[1] for t in tones))
    kind = ""
    if len(tones) > p["max_tones"]:
        return Frame("")  # a whistle has two or three chambers; a horn's harmonics are more
    if len(tones) >= 2:
        if not profile.tones_hz and len(hz) >= p["series_tones"] and _series(hz, p):
            return Frame("")
        kind = "multi"
    elif tone_power >= low_power * 10 ** (p["min_trill_to_low_db"] / 10) and _trill(
            frame, top[1], g, p["trill_blocks"]) >= p["trill_min"]:
        kind = "trill"
    if not kind or kind not in profile.kinds:
        return Frame("")
    if profile.tones_hz:
        tol = p["profile_tolerance"]
        hit = sum(any(abs(f - t) <= tol * t for f in hz) for t in profile.tones_hz)
        if hit < min(2, len(profile.tones_hz)):
            return Frame("")
    return Frame(kind, hz)


def _comb(pw: Floats, a: int, b: int, g: Geometry, p: dict[str, Any], least: int,
          floor: float) -> float:
    """The spacing of a comb of harmonics between bins ``a`` and ``b`` (0: none): at least
    ``least`` peaks ``spacing_prominence_db`` over the median, spaced in ``spacing_hz``."""
    thr = max(_median(pw[a : b + 1]), floor) * 10 ** (p["spacing_prominence_db"] / 10)
    fs = [_interp(pw, k) * g.sr / g.n for k in range(a, b + 1)
          if pw[k] > thr and pw[k] > pw[k - 1] and pw[k] >= pw[k + 1]]
    if len(fs) < least:
        return 0.0
    d = np.diff(np.asarray(fs))
    f0 = _median(d)
    if not p["spacing_hz"][0] <= f0 <= p["spacing_hz"][1]:
        return 0.0
    r = d / f0
    fit = int(np.sum(np.abs(r - np.round(r)) < p["harmonic_tolerance"]))
    return f0 if fit >= p["comb_fit"] * len(d) else 0.0


def _series(hz: Sequence[float], p: dict[str, Any]) -> bool:
    """Whether the tones are a harmonic series (a voice's, a horn's): multiples of a spacing."""
    for i in range(len(hz)):
        for j in range(i + 1, len(hz)):
            d = hz[j] - hz[i]
            if d > p["series_max_hz"]:
                continue
            if all(abs(f / d - round(f / d)) < p["series_tolerance"] for f in hz):
                return True
    return False


def _trill(frame: Floats, hz: float, g: Geometry, blocks: int) -> float:
    """How much the tone's amplitude jumps between the frame's sub-blocks: (max-min)/(max+min)."""
    m = g.n // blocks
    n = np.arange(g.n, dtype=np.float64)
    ph = 2 * math.pi * hz / g.sr * n
    re = frame * np.cos(ph)
    im = frame * np.sin(ph)
    amps = [math.hypot(float(np.sum(re[b * m : (b + 1) * m])),
                       float(np.sum(im[b * m : (b + 1) * m]))) for b in range(blocks)]
    hi, lo = max(amps), min(amps)
    return (hi - lo) / (hi + lo) if hi + lo > 0 else 0.0


def frames(x: Floats, sr: int, profile: Profile | None = None) -> Iterator[Frame]:
    """Every frame's verdict, in order (frame ``i`` starts at sample ``i * hop``)."""
    prof = profile or Profile.default()
    g = Geometry.of(sr, prof)
    p = params()
    min_power = 10 ** (p["min_level_db"] / 10)
    count = 0 if len(x) < g.n else 1 + (len(x) - g.n) // g.hop
    chunk = 2048
    nothing = Frame("")
    b0, b1 = g.band
    prom = 10 ** (p["peak_prominence_db"] / 10)
    for c0 in range(0, count, chunk):
        c1 = min(count, c0 + chunk)
        view = np.lib.stride_tricks.sliding_window_view(x[c0 * g.hop : (c1 - 1) * g.hop + g.n], g.n)
        fr = view[:: g.hop]
        level = np.mean(fr * fr, axis=1)
        spec = np.fft.rfft(fr * g.window, axis=1)
        pw = spec.real**2 + spec.imag**2
        band = pw[:, b0 : b1 + 1]
        med = np.median(band, axis=1)
        floor = np.sum(pw, axis=1) * 10 ** (p["floor_db"] / 10)
        maybe = (level >= min_power) & (band.max(axis=1) > np.maximum(med, floor) * prom)
        for i in range(c1 - c0):
            yield classify(fr[i], pw[i], g, prof) if maybe[i] else nothing


class Tracker:
    """Frames to blasts: the same state machine as the worklet's."""

    def __init__(self, sr: int, n: int, hop: int) -> None:
        p = params()
        self.sr, self.n, self.hop = sr, n, hop
        self.min_frames, self.hold, self.gap = p["min_frames"], p["hold_frames"], p["gap_frames"]
        self.stable, self.min_score = p["stable_tolerance"], p["min_score"]
        self.i = 0
        self.start = -1
        self.on = 0
        self.miss = 0
        self.in_blast = False
        self.tones: tuple[float, ...] = ()

    def push(self, fr: Frame) -> Blast | None:
        """The frame's verdict; a blast when this frame completes its start."""
        out = None
        steady = fr.kind != "" and (self.start < 0 or self.in_blast or any(
            abs(f - t) <= self.stable * t for f in fr.tones_hz for t in self.tones))
        if steady:
            if self.start < 0 and not self.in_blast:
                self.start, self.on, self.tones = self.i, 0, fr.tones_hz
            self.on += 1
            self.miss = 0
            span = self.i - self.start + 1
            enough = self.on >= self.min_frames and self.on >= self.min_score * span
            if not self.in_blast and enough:
                self.in_blast = True
                at = (self.start * self.hop + self.n / 2) / self.sr
                out = Blast(round(at, 4), round(self.on / span, 3), self.tones)
        else:
            self.miss += 1
            if self.start >= 0 and not self.in_blast and self.miss > self.hold:
                self.start, self.on = -1, 0
            if self.in_blast and self.miss >= self.gap:
                self.in_blast, self.start, self.on = False, -1, 0
        self.i += 1
        return out


def detect(x: Floats, sr: int, profile: Profile | None = None) -> list[Blast]:
    """The onsets of the whistle's blasts in ``x`` (mono, -1..1) at ``sr`` Hz."""
    prof = profile or Profile.default()
    g = Geometry.of(sr, prof)
    tr = Tracker(sr, g.n, g.hop)
    return [b for f in frames(np.asarray(x, dtype=np.float64), sr, prof)
            if (b := tr.push(f)) is not None]


def calibrate(x: Floats, sr: int, name: str = "calibrated") -> Profile:
    """A profile learned from a recording of three or more blasts of one whistle.

    ``ValueError`` if fewer than three blasts are heard."""
    p = params()
    generic = Profile("calibration", KINDS, (float(p["band_hz"][0]), float(p["band_hz"][1])))
    g = Geometry.of(sr, generic)
    tr = Tracker(sr, g.n, g.hop)
    blasts: list[float] = []
    kinds: dict[str, int] = {"multi": 0, "trill": 0}
    tones: list[float] = []
    arr = np.asarray(x, dtype=np.float64)
    for f in frames(arr, sr, generic):
        b = tr.push(f)
        if b is not None:
            blasts.append(b.at)
        if f.kind and (tr.in_blast or tr.start >= 0):
            kinds[f.kind] += 1
            tones.extend(f.tones_hz)
    if len(blasts) < 3:
        raise ValueError(f"heard {len(blasts)} blast(s) of a whistle; calibration needs 3 or more")
    kind = max(kinds, key=lambda k: kinds[k])
    found = _cluster(tones, p["profile_tolerance"], sum(kinds.values()))
    if kind == "trill":
        found = found[:1]
    lo = max(float(p["band_hz"][0]), min(found) / 1.15)
    hi = min(float(p["band_hz"][1]), max(found) * 1.15)
    return Profile(name, (kind,), (round(lo), round(hi)), tuple(sorted(found)), tuple(blasts))


def _cluster(tones: list[float], tol: float, frames_seen: int) -> list[float]:
    """The tones heard in at least a third of the whistle frames (median of each group)."""
    out: list[float] = []
    rest = sorted(tones)
    groups: list[list[float]] = []
    for t in rest:
        if groups and t - groups[-1][0] <= tol * groups[-1][0]:
            groups[-1].append(t)
        else:
            groups.append([t])
    groups.sort(key=len, reverse=True)
    for grp in groups[:4]:
        if len(grp) >= max(1, frames_seen // 3):
            out.append(float(np.median(grp)))
    return out or [float(np.median(rest))]
