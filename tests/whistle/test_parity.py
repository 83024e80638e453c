"""The detector is defined once: the console's worklet (JavaScript, in chromium) and the
Python detector, fed the same audio, find the same blasts within one frame."""

from __future__ import annotations

import base64
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chukker.whistle import detector as D
from chukker.whistle import synthetic as S

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

WORKLET = Path(str(resources.files("chukker.web").joinpath("static/whistle-worklet.js")))


@pytest.fixture(scope="module")
def page(browser: Any) -> Any:
    ctx = browser.new_context()
    pg = ctx.new_page()
    pg.set_content("<html><body></body></html>")
    pg.add_script_tag(content=WORKLET.read_text(encoding="utf-8"))
    yield pg
    ctx.close()


def _js_blasts(page: Any, x: np.ndarray, sr: int, profile: D.Profile | None,
               block: int = 128) -> list[dict[str, Any]]:
    prof = None if profile is None else profile.to_json()
    b64 = base64.b64encode(x.astype("<f4").tobytes()).decode("ascii")
    got: list[dict[str, Any]] = page.evaluate(
        """([params, sr, b64, prof, block]) => {
             const det = new ChukkerWhistle.Detector(params, sr, prof);
             const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
             const x = new Float32Array(raw.buffer), out = [];
             for (let i = 0; i < x.length; i += block) {
               out.push(...det.push(x.subarray(i, i + block)));
             }
             return out;
           }""", [D.params(), sr, b64, prof, block])
    return got


@pytest.mark.parametrize("sr", [16000, 44100])
def test_rule_5_worklet_and_python_hear_the_same_whistles(page: Any, sr: int) -> None:
    x, truth = S.scene(sr, 7.0, seed=sr, whistles=3, snr_db=0.0, overlap=False)
    x = x.astype(np.float32).astype(np.float64)  # the samples the worklet gets
    py = D.detect(x, sr)
    js = _js_blasts(page, x, sr, None)
    frame = D.Geometry.of(sr, D.Profile.default()).hop / sr
    assert len(py) == len(truth) == len(js)
    for a, b in zip(py, js, strict=True):
        assert abs(a.at - b["at"]) <= frame


def test_rule_5_worklet_and_python_agree_with_a_calibrated_profile(page: Any) -> None:
    sr = 16000
    prof = D.calibrate(S.blasts(sr, S.PEALESS[1], 3), sr)
    x, _ = S.scene(sr, 8.0, seed=4, whistles=3, snr_db=3.0, kinds=("pealess",))
    x = x.astype(np.float32).astype(np.float64)
    py = [b.at for b in D.detect(x, sr, prof)]
    js = [b["at"] for b in _js_blasts(page, x, sr, prof, block=441)]
    assert len(py) == len(js)
    assert all(abs(a - b) <= 0.01 for a, b in zip(py, js, strict=True))


def test_rule_5_calibration_at_the_table_finds_the_tones_python_finds(page: Any) -> None:
    sr = 16000
    x = S.blasts(sr, S.PEALESS[2], 3, seed=5).astype(np.float32).astype(np.float64)
    py = D.calibrate(x, sr)
    b64 = base64.b64encode(x.astype("<f4").tobytes()).decode("ascii")
    js = page.evaluate(
        """([params, sr, b64]) => {
             const generic = {name: "calibration", kinds: ["multi", "trill"],
                              band_hz: params.band_hz.slice(), tones_hz: []};
             const det = new ChukkerWhistle.Detector(params, sr, generic);
             const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
             const x = new Float32Array(raw.buffer);
             const tones = [], kinds = {}, blasts = [];
             const onFrame = (fr) => {
               if (fr.kind && det.inBlast()) { kinds[fr.kind] = (kinds[fr.kind] || 0) + 1;
                                               tones.push(...fr.tones); }
             };
             for (let i = 0; i < x.length; i += 128) {
               for (const b of det.push(x.subarray(i, i + 128), onFrame)) blasts.push(b.at);
             }
             return ChukkerWhistle.profileFrom(params, tones, kinds, blasts, "console");
           }""", [D.params(), sr, b64])
    assert js["kinds"] == list(py.kinds)
    assert len(js["blasts"]) == len(py.blasts) == 3
    assert len(js["tones_hz"]) == len(py.tones_hz)
    assert all(abs(a - b) <= 1.0 for a, b in zip(js["tones_hz"], py.tones_hz, strict=True))
    assert D.Profile.from_json(js).tones_hz == tuple(js["tones_hz"])


@pytest.mark.parametrize(("what", "sr"), [("slow attack", 16000),
                                          ("two whistles 0.4 s apart", 48000),
                                          ("horn", 48000)])
def test_rule_5_worklet_looks_back_to_the_same_onset_as_python(
        page: Any, what: str, sr: int) -> None:
    """Decide late, stamp early, in both: the blasts whose first frames the tracker missed
    (a slow attack) are stamped at the same held frame, and the second of two close blasts
    does not look back into the first; under a horn, both keep the tones that rose since
    the frame ``fresh.lag_frames`` before, and stop looking back where they rose."""
    x, truth = S.over(sr, what, -6.0, seed=11)
    x = x.astype(np.float32).astype(np.float64)
    py = D.detect(x, sr)
    js = _js_blasts(page, x, sr, None)
    frame = D.Geometry.of(sr, D.Profile.default()).hop / sr
    assert len(py) == len(truth) == len(js)
    for a, b in zip(py, js, strict=True):
        assert abs(a.at - b["at"]) <= frame
        assert abs(a.decided - b["decided"]) <= frame
