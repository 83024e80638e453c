"""The whistle detector: an umpire's whistle in arena sound, and the onset of each blast.

The algorithm and its numbers are defined once: the numbers in ``params.json`` (read here
and by the console's ``static/whistle-worklet.js``), the steps below, which the worklet
repeats line for line (``tests/whistle/test_parity.py`` feeds both the same audio).

Per frame (``frame_s`` long, Hann window, every ``hop_s``):

1. the frame's level; below ``min_level_db`` nothing is heard;
2. the power spectrum; the tonal peaks in the profile's band (local maxima
   ``peak_prominence_db`` above the band's median);
3. peaks that are harmonics of the strongest low tones (a horn, a voice; within
   ``harmonic_tolerance`` of the low tone or ``harmonic_bins``, whichever is less) are
   dropped, and so are octaves of a stronger peak; but not a peak that rose
   ``fresh.jump_db`` since the frame ``fresh.lag_frames`` earlier, as a harmonic of a low
   tone that already sounded then (a whistle blown while the horn sounds: the horn's
   partials cover the whistle band);
4. the strongest peak and its neighbours within ``cluster_ratio``, at least
   ``min_tone_gap_hz`` apart, are the frame's tones. Two or more (not a harmonic series):
   a pea-less whistle (``multi``). One, whose amplitude jumps between the frame's
   ``trill_blocks`` sub-blocks by ``trill_min`` or more: a pea whistle's trill (``trill``).
   One steady tone (a lip whistle) is neither;
5. with a calibrated profile, the tones must be the profile's (``profile_tolerance``).

A blast is sure after ``min_frames`` whistle frames (gaps of ``hold_frames`` forgiven) that
share a tone with the first (within ``stable_multi_tolerance``: a pea-less whistle's
chambers hold their pitch, a voice's formants wander; a trill's within ``stable_tolerance``):
the detector decides late. It stamps early: its onset is the centre of the first frame, found
by looking back over the frames it holds, in which the blast's tones sound, and not past
a frame after which a tone rose ``rise_db`` from a steady level (``lookback``);
it ends after ``gap_frames`` without a whistle frame.

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
from collections.abc import Callable, Iterator, Sequence
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
    """A whistle's onset (seconds from the start), its score (share of whistle frames), its
    tones, and when the detector was sure (``decided``: the end of the frame that decided)."""

    at: float
    score: float
    tones_hz: tuple[float, ...] = ()
    decided: float = 0.0


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


def classify(frame: Floats, pw: Floats, g: Geometry, profile: Profile,
             ref: Floats | None = None) -> Frame:
    """One frame's verdict (``pw``: the Hann-windowed power spectrum of ``frame``; ``ref``:
    the spectrum ``fresh.lag_frames`` earlier, ``None`` if not held or below the level)."""
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
    fresh = _fresh(pw, ref, [t[2] for t in peaks], p["fresh"])
    for _, k in lows[: p["low_tones"]]:
        f_low = _interp(pw, k) * g.sr / g.n
        old = ref is not None and _steady(pw, ref, k, p["fresh"])
        peaks = [t for t in peaks if (old and t[2] in fresh) or not _harmonic(t[1], f_low, g, p)]
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
    if len(tones) >= 2:
        # a chamber's tone is sharp, a voice's formant (at 16 kHz, its harmonics unresolved)
        # broad: the frame is a pea-less whistle's on its sharp tones only; with fewer than
        # two, its strongest peak may still be a pea's trill (which broadens its one tone)
        sb, sharp = p["sharp_bins"], 10 ** (p["sharp_db"] / 10)
        tones = [t for t in tones if pw[t[2]] >= sharp * max(pw[t[2] - sb], pw[t[2] + sb])]
        if len(tones) < 2:
            tones = [top]
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


def _harmonic(hz: float, f_low: float, g: Geometry, p: dict[str, Any]) -> bool:
    """Whether ``hz`` is the ``h``-th harmonic (2 to ``max_harmonic``) of the low tone
    ``f_low``: within ``harmonic_tolerance`` of ``f_low``, and within ``harmonic_bins``
    ``[a, b]``: ``a + b * h`` bins (the low tone is known to a fraction of a bin, its
    ``h``-th multiple to ``h`` times that), whichever is less."""
    h = round(hz / f_low)
    a, b = p["harmonic_bins"]
    tol = min(p["harmonic_tolerance"] * f_low, (a + b * h) * g.sr / g.n)
    return bool(2 <= h <= p["max_harmonic"] and abs(hz - h * f_low) < tol)


def _near(pw: Floats, k: int) -> float:
    return float(max(pw[k - 1], pw[k], pw[k + 1]))


def _fresh(pw: Floats, ref: Floats | None, ks: list[int], q: dict[str, Any]) -> set[int]:
    """The peaks' bins whose power rose ``jump_db`` or more since ``ref`` (tones that began
    after it: a whistle blown while a horn sounds)."""
    if ref is None:
        return set()
    jump = 10 ** (q["jump_db"] / 10)
    return {k for k in ks if _near(pw, k) >= jump * _near(ref, k)}


def _steady(pw: Floats, ref: Floats, k: int, q: dict[str, Any]) -> bool:
    """Whether the low tone at bin ``k`` already sounded in ``ref`` (within ``steady_db``):
    a sound that was there before, whose harmonics are not what just began."""
    return _near(ref, k) >= float(10 ** (-q["steady_db"] / 10)) * _near(pw, k)


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


def _spectra(x: Floats, g: Geometry, profile: Profile
             ) -> Iterator[tuple[Floats, Floats, NDArray[np.bool_], int]]:
    """The frames of ``x`` (frame ``i`` starts at sample ``i * hop``), 2048 at a time:
    (frames, their power spectra, whether each is worth classifying, how many)."""
    p = params()
    min_power = 10 ** (p["min_level_db"] / 10)
    count = 0 if len(x) < g.n else 1 + (len(x) - g.n) // g.hop
    b0, b1 = g.band
    prom = 10 ** (p["peak_prominence_db"] / 10)
    for c0 in range(0, count, 2048):
        c1 = min(count, c0 + 2048)
        view = np.lib.stride_tricks.sliding_window_view(x[c0 * g.hop : (c1 - 1) * g.hop + g.n], g.n)
        fr = view[:: g.hop]
        level = np.mean(fr * fr, axis=1)
        spec = np.fft.rfft(fr * g.window, axis=1)
        pw = spec.real**2 + spec.imag**2
        band = pw[:, b0 : b1 + 1]
        med = np.median(band, axis=1)
        floor = np.sum(pw, axis=1) * 10 ** (p["floor_db"] / 10)
        maybe = (level >= min_power) & (band.max(axis=1) > np.maximum(med, floor) * prom)
        loud = level >= min_power
        yield fr, pw, np.stack([maybe, loud]), c1 - c0


def frames(x: Floats, sr: int, profile: Profile | None = None) -> Iterator[Frame]:
    """Every frame's verdict, in order (frame ``i`` starts at sample ``i * hop``)."""
    out: list[Frame] = []
    Stream(sr, profile, lambda f, _: out.append(f)).push(np.asarray(x, dtype=np.float64))
    yield from out


class Tracker:
    """Frames to blasts: the same state machine as the worklet's.

    It holds the power spectra of the last ``lookback.frames`` frames. Once a blast is sure
    (``min_frames`` whistle frames), it looks back from the blast's first whistle frame over
    the frames it holds for where the blast's tones began (each tone a peak
    ``lookback.prominence_db`` over its neighbourhood of ``lookback.width_hz``, and within
    ``lookback.drop_db`` of its power when the blast was decided; two tones, or the one
    tone of a trill; gaps of ``lookback.hold_frames`` forgiven), and stamps that frame."""

    def __init__(self, g: Geometry) -> None:
        p = params()
        lb = p["lookback"]
        self.sr, self.n, self.hop = g.sr, g.n, g.hop
        self.min_frames, self.hold, self.gap = p["min_frames"], p["hold_frames"], p["gap_frames"]
        self.stable, self.min_score = p["stable_tolerance"], p["min_score"]
        self.stable_multi = p["stable_multi_tolerance"]
        self.held = int(lb["frames"])
        self.ring = np.zeros((self.held, g.n // 2 + 1))
        self.loud = np.zeros(self.held, dtype=bool)
        self.width = round(lb["width_hz"] * g.n / g.sr)
        self.prom = 10 ** (lb["prominence_db"] / 10)
        self.drop = 10 ** (-lb["drop_db"] / 10)
        self.lb_hold = int(lb["hold_frames"])
        self.lag = int(p["fresh"]["lag_frames"])
        self.rise = float(10 ** (lb["rise_db"] / 10))
        self.rise_frames = int(lb["rise_frames"])
        self.tone: dict[str, float] = lb["tone"]
        self.ended = -1  # the frame at which the last blast ended
        self.i = 0
        self.start = -1
        self.on = 0
        self.miss = 0
        self.in_blast = False
        self.tones: tuple[float, ...] = ()

    def push(self, fr: Frame, pw: Floats | None = None) -> Blast | None:
        """The frame's verdict (and its power spectrum, ``None`` if below ``min_level_db``);
        a blast when this frame makes it sure."""
        out = None
        slot = self.i % self.held
        self.loud[slot] = pw is not None
        if pw is not None:
            self.ring[slot] = pw
        tol = self.stable if fr.kind == "trill" else self.stable_multi
        steady = fr.kind != "" and (self.start < 0 or self.in_blast or any(
            abs(f - t) <= tol * t for f in fr.tones_hz for t in self.tones))
        if steady:
            if self.start < 0 and not self.in_blast:
                self.start, self.on, self.tones = self.i, 0, fr.tones_hz
            self.on += 1
            self.miss = 0
            span = self.i - self.start + 1
            enough = self.on >= self.min_frames and self.on >= self.min_score * span
            if not self.in_blast and enough:
                self.in_blast = True
                first = self.look_back(fr.tones_hz)
                at = (first * self.hop + self.n / 2) / self.sr
                sure = (self.i * self.hop + self.n) / self.sr
                out = Blast(round(at, 4), round(self.on / span, 3), self.tones, round(sure, 4))
        else:
            self.miss += 1
            if self.start >= 0 and not self.in_blast and self.miss > self.hold:
                self.start, self.on = -1, 0
            if self.in_blast and self.miss >= self.gap:
                self.in_blast, self.start, self.on = False, -1, 0
                self.ended = self.i
        self.i += 1
        return out

    def ref(self) -> Floats | None:
        """The spectrum held ``fresh.lag_frames`` before the frame to come (``None``: not
        held yet, or below ``min_level_db``)."""
        j = self.i - self.lag
        return self.ring[j % self.held] if j >= 0 and self.loud[j % self.held] else None

    def _bins(self, hz: float) -> int:
        return round(hz * self.n / self.sr)

    def _peak(self, slot: int, k: int) -> float:
        return float(np.max(self.ring[slot, k - 1 : k + 2]))

    def _level(self, j0: int, j1: int, k: int) -> float:
        """The tone's (bin ``k``) greatest power over the held frames ``j0`` to ``j1`` (0
        over frames not held or below ``min_level_db``)."""
        return max((self._peak(j % self.held, k) for j in range(max(j0, self.i - self.held + 1),
                    j1 + 1) if self.loud[j % self.held]), default=0.0)

    def _rose(self, j: int, k: int) -> bool:
        s = self.rise_frames
        now = self._level(j - s + 1, j, k)
        return (self._level(j + 1, j + s, k) > self.rise * now
                and self.rise * self._level(j - 2 * s + 1, j - s, k) >= now)

    def _track(self, hz: float, ref: float) -> int:
        """A pea-less whistle's tone (``hz``) back from ``start``: the earliest frame of its
        run of frames holding it (``lookback.tone``: a peak within ``bins`` or
        ``tolerance`` of ``hz``, ``prominence_db`` over its neighbourhood, ``floor_db`` over
        its bin's floor (the ``floor_percentile`` of its power over the held frames before
        the blast) and ``ref`` (its decided power less ``drop_db``); gaps of
        ``hold_frames``); a peak that wanders off the tone (a formant) is not it."""
        f = hz * self.n / self.sr
        k, tol = round(f), max(self.tone["bins"], self.tone["tolerance"] * f)
        lo, hi = max(1, math.floor(f - tol)), math.ceil(f + tol)
        limit = max(self.ended, self.i - self.held)
        hist = sorted(float(self.ring[j % self.held, k]) for j in range(limit + 1, self.start)
                      if self.loud[j % self.held])
        floor = hist[int(self.tone["floor_percentile"] / 100 * (len(hist) - 1))] if hist else 0.0
        floor *= 10 ** (self.tone["floor_db"] / 10)
        prom = 10 ** (self.tone["prominence_db"] / 10)
        first, miss, j = self.start, 0, self.start - 1
        while j > limit and miss <= self.lb_hold:
            slot = j % self.held
            ok = False
            if self.loud[slot]:
                if self._rose(j, k):
                    break
                pw = self.ring[slot]
                m = lo + int(np.argmax(pw[lo : hi + 1]))
                v = float(pw[m])
                if v >= pw[m - 1] and v >= pw[m + 1] and v >= ref and v >= floor:
                    a, b, c = (math.log(float(pw[q]) + 1e-30) for q in (m - 1, m, m + 1))
                    d = a - 2 * b + c
                    at = m + (0.5 * (a - c) / d if d < 0 else 0.0)
                    med = _median(pw[k - self.width : k + self.width + 1])
                    ok = abs(at - f) <= tol and v >= med * prom
            first, miss = (j, 0) if ok else (first, miss + 1)
            j -= 1
        return first

    def look_back(self, tones: tuple[float, ...]) -> int:
        """The first frame of the blast's tones: from ``start`` back over the held frames.
        A pea-less whistle's tones are tracked one by one (:meth:`_track`); the onset is the
        earliest frame from which two of them sound."""
        ks = [self._bins(t) for t in tones]
        if len(ks) >= 2:
            now = self.i % self.held
            firsts = sorted(self._track(t, self._peak(now, k) * self.drop)
                            for t, k in zip(tones, ks, strict=True))
            return firsts[1]
        now = self.i % self.held
        ref = [self._peak(now, k) * self.drop for k in ks]
        need = min(2, len(ks))
        limit = max(self.ended, self.i - self.held)
        first, miss, j = self.start, 0, self.start - 1
        while j > limit and miss <= self.lb_hold:
            slot = j % self.held
            hit = 0
            if self.loud[slot]:
                # a tone rose rise_db, over the rise_frames after this frame, above its
                # level over the rise_frames up to it, which was steady (within rise_db of the
                # rise_frames before): the blast began after it, on a steady sound (a horn)
                if any(self._rose(j, k) for k in ks):
                    break
                for k, r in zip(ks, ref, strict=True):
                    v = self._peak(slot, k)
                    med = _median(self.ring[slot, k - self.width : k + self.width + 1])
                    hit += v >= med * self.prom and v >= r
            if hit >= need:
                first, miss = j, 0
            else:
                miss += 1
            j -= 1
        return first


class Stream:
    """The detector over a stream: push samples (any block size), get the blasts they
    complete. It holds one frame of samples and the tracker's held spectra, whatever the
    length of the stream. ``on_frame(verdict, tracker)`` is called after each frame."""

    def __init__(self, sr: int, profile: Profile | None = None,
                 on_frame: Callable[[Frame, Tracker], None] | None = None) -> None:
        self.profile = profile or Profile.default()
        self.g = Geometry.of(sr, self.profile)
        self.tracker = Tracker(self.g)
        self.on_frame = on_frame
        self.rest: Floats = np.zeros(0)
        #: the power spectrum summed over the loud frames (for saying what a file holds)
        self.spectrum: Floats = np.zeros(self.g.n // 2 + 1)
        self.samples = 0

    def push(self, x: Floats) -> list[Blast]:
        buf = np.concatenate([self.rest, np.asarray(x, dtype=np.float64)])
        self.samples += len(x)
        g, tr, out = self.g, self.tracker, []
        nothing = Frame("")
        used = 0
        for fr, pw, flags, count in _spectra(buf, g, self.profile):
            self.spectrum += np.sum(pw[flags[1]], axis=0)
            for i in range(count):
                f = classify(fr[i], pw[i], g, self.profile, tr.ref()) if flags[0, i] else nothing
                b = tr.push(f, pw[i] if flags[1, i] else None)
                if self.on_frame is not None:
                    self.on_frame(f, tr)
                if b is not None:
                    out.append(b)
            used += count
        self.rest = buf[used * g.hop :]
        return out

    def steady_tone(self) -> float | None:
        """The frequency (Hz) of the one steady tone the stream held, if most of its sound
        was that (a sine wave, a lip whistle); ``None`` if not, or if it was silent."""
        total = float(np.sum(self.spectrum))
        if total <= 0:
            return None
        k = int(np.argmax(self.spectrum))
        near = float(np.sum(self.spectrum[max(0, k - 3) : k + 4]))
        return k * self.g.sr / self.g.n if near >= 0.5 * total else None


def detect(x: Floats, sr: int, profile: Profile | None = None) -> list[Blast]:
    """The onsets of the whistle's blasts in ``x`` (mono, -1..1) at ``sr`` Hz."""
    return Stream(sr, profile).push(x)


class Calibration:
    """Learning a whistle from a stream of three or more of its blasts (see :func:`calibrate`)."""

    def __init__(self, sr: int) -> None:
        p = params()
        generic = Profile("calibration", KINDS, (float(p["band_hz"][0]), float(p["band_hz"][1])))
        self.kinds: dict[str, int] = {"multi": 0, "trill": 0}
        self.tones: list[float] = []
        self.blasts: list[float] = []
        self.stream = Stream(sr, generic, self._frame)

    def _frame(self, f: Frame, tr: Tracker) -> None:
        if f.kind and (tr.in_blast or tr.start >= 0):
            self.kinds[f.kind] += 1
            self.tones.extend(f.tones_hz)

    def push(self, x: Floats) -> None:
        self.blasts += [b.at for b in self.stream.push(x)]

    def profile(self, name: str = "calibrated") -> Profile:
        """The whistle's profile; ``ValueError`` if fewer than three blasts were heard."""
        p = params()
        if len(self.blasts) < 3:
            raise ValueError(f"heard {len(self.blasts)} blast(s) of a whistle; calibration "
                             f"needs 3 or more")
        kind = max(self.kinds, key=lambda k: self.kinds[k])
        found = _cluster(self.tones, p["profile_tolerance"], sum(self.kinds.values()))
        if kind == "trill":
            found = found[:1]
        lo = max(float(p["band_hz"][0]), min(found) / 1.15)
        hi = min(float(p["band_hz"][1]), max(found) * 1.15)
        return Profile(name, (kind,), (round(lo), round(hi)), tuple(sorted(found)),
                       tuple(self.blasts))


def calibrate(x: Floats, sr: int, name: str = "calibrated") -> Profile:
    """A profile learned from a recording of three or more blasts of one whistle.

    ``ValueError`` if fewer than three blasts are heard."""
    c = Calibration(sr)
    c.push(np.asarray(x, dtype=np.float64))
    return c.profile(name)


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
