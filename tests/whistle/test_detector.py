"""Rule 5: "When the Umpire sounds the whistle ... the clock shall be stopped": the detector
hears the umpire's whistle, at its instant, and nothing else of the arena."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.whistle import detector as D
from chukker.whistle import synthetic as S

SR = 16000


def _place(parts: list[tuple[float, np.ndarray]], dur: float, noise: float = 0.0,
           seed: int = 0) -> np.ndarray:
    x = noise * S._norm(S.crowd(SR, dur, seed) + 0.6 * S.hooves(SR, dur, seed + 1))
    for at, w in parts:
        i = int(at * SR)
        x[i : i + len(w)] += w[: len(x) - i]
    return np.asarray(0.9 * x / np.max(np.abs(x)))


@pytest.mark.parametrize("tones", S.PEALESS)
def test_rule_5_pealess_whistle_heard_at_its_onset_in_each_pitch(tones: tuple[float, ...]) -> None:
    x = _place([(1.0, S.pealess_whistle(SR, 0.5, tones)), (3.2, S.pealess_whistle(SR, 0.3, tones))],
               5.0, noise=0.3)
    got = [b.at for b in D.detect(x, SR)]
    assert len(got) == 2
    assert abs(got[0] - 1.0) < 0.05 and abs(got[1] - 3.2) < 0.05


@pytest.mark.parametrize(("tone", "rate"), S.PEA)
def test_rule_5_pea_whistle_trill_heard(tone: float, rate: float) -> None:
    x = _place([(1.5, S.pea_whistle(SR, 0.6, tone, rate))], 4.0, noise=0.3)
    got = D.detect(x, SR)
    assert [round(b.at, 1) for b in got] == [1.5]


def test_rule_5_whistle_heard_at_minus_6_db_in_crowd_and_hooves() -> None:
    x, truth = S.scene(SR, 24.0, seed=7, whistles=4, snr_db=-6.0, distractors=False)
    got = [b.at for b in D.detect(x, SR)]
    assert len(got) == len(truth)
    assert all(abs(g - t.at) < 0.1 for g, t in zip(got, truth, strict=True))


def test_rule_5_arena_horn_is_not_a_whistle() -> None:
    x = _place([(0.5, S.horn(SR, 1.5, f0)) for f0 in (300.0,)]
               + [(2.5, S.horn(SR, 1.2, 440.0)), (4.2, S.horn(SR, 0.8, 370.0))], 6.0, noise=0.2)
    assert D.detect(x, SR) == []


@pytest.mark.parametrize("tone", [1500.0, 2200.0, 2900.0])
def test_rule_5_lip_whistling_is_not_a_whistle(tone: float) -> None:
    x = _place([(0.5, S.lip_whistle(SR, 2.0, tone, seed=int(tone)))], 3.0, noise=0.2)
    assert D.detect(x, SR) == []


def test_rule_5_crowd_and_hooves_are_not_a_whistle() -> None:
    x = _place([], 20.0, noise=1.0, seed=11)
    assert D.detect(x, SR) == []


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng for a voice")
def test_rule_5_announcer_speech_is_not_a_whistle() -> None:
    words = S.speech(SR, "Goal for the Blues, number two, the score is five to four")
    x = _place([(0.3, 0.8 * words)], len(words) / SR + 0.6, noise=0.1)
    assert D.detect(x, SR) == []


def test_rule_5_silence_and_a_clipped_square_are_not_a_whistle() -> None:
    assert D.detect(np.zeros(SR * 2), SR) == []
    t = np.arange(SR * 2) / SR
    assert D.detect(np.sign(np.sin(2 * np.pi * 150 * t)), SR) == []


def test_rule_5_calibration_finds_the_whistles_tones_from_three_blasts() -> None:
    tones = S.PEALESS[1]
    prof = D.calibrate(S.blasts(SR, tones, 3), SR)
    assert len(prof.blasts) == 3
    assert prof.kinds == ("multi",)
    assert len(prof.tones_hz) == 3
    assert all(abs(a - b) < 0.02 * b for a, b in zip(prof.tones_hz, tones, strict=True))


def test_rule_5_calibrated_profile_hears_its_whistle_not_another() -> None:
    prof = D.calibrate(S.blasts(SR, S.PEALESS[0], 3), SR)
    mine = S.pealess_whistle(SR, 0.5, S.PEALESS[0], 3)
    other = S.pealess_whistle(SR, 0.5, S.PEALESS[1], 4)
    x = _place([(1.0, mine), (3.0, other)], 5.0, noise=0.2)
    assert [round(b.at, 1) for b in D.detect(x, SR, prof)] == [1.0]


def test_rule_5_calibration_of_a_pea_whistle_is_a_trill_profile() -> None:
    prof = D.calibrate(S.blasts(SR, count=4, pea=S.PEA[0]), SR)
    assert prof.kinds == ("trill",)
    assert abs(prof.tones_hz[0] - S.PEA[0][0]) < 0.03 * S.PEA[0][0]


def test_rule_5_calibration_refuses_fewer_than_three_blasts() -> None:
    with pytest.raises(ValueError, match="needs 3 or more"):
        D.calibrate(S.blasts(SR, count=2), SR)


def test_record_whistle_profile_round_trips_through_json() -> None:
    prof = D.calibrate(S.blasts(SR, S.PEALESS[2], 3), SR)
    back = D.Profile.from_json(json.loads(json.dumps(prof.to_json())))
    assert back.kinds == prof.kinds and back.band_hz == prof.band_hz
    assert back.tones_hz == tuple(round(t, 1) for t in prof.tones_hz)


@pytest.mark.parametrize("bad", [
    {}, [], {"format": "x"}, {"format": "chukker-whistle-profile", "kinds": ["lip"],
                              "band_hz": [2000, 3000], "tones_hz": []},
    {"format": "chukker-whistle-profile", "kinds": ["multi"], "band_hz": [100, 30000],
     "tones_hz": []},
    {"format": "chukker-whistle-profile", "kinds": ["multi"], "band_hz": [2000, 3000],
     "tones_hz": [9000]},
])
def test_record_whistle_profile_refuses_what_is_not_one(bad: object) -> None:
    with pytest.raises(ValueError, match="profile"):
        D.Profile.from_json(bad)


@settings(max_examples=8)
@given(st.sampled_from([16000, 22050, 44100, 48000]), st.floats(0.4, 2.0))
def test_rule_5_onset_is_within_30_ms_at_every_rate(sr: int, at: float) -> None:
    x = np.zeros(int(sr * 3.0))
    w = S.pealess_whistle(sr, 0.4, S.PEALESS[0])
    i = int(at * sr)
    x[i : i + len(w)] += 0.3 * w
    got = D.detect(x, sr)
    assert len(got) == 1 and abs(got[0].at - at) <= 0.03


def test_params_are_one_json_file_the_browser_reads_too() -> None:
    from importlib import resources

    from chukker.web.officials import console as matches

    p = D.params()
    assert json.loads(resources.files("chukker.whistle").joinpath("params.json").read_text()) == p
    assert matches.whistle_params() == p


def test_rule_5_decide_late_stamp_early_a_slow_attack_is_stamped_at_its_onset() -> None:
    """The tracker is sure only after ``min_frames``; the stamp is where the tones began,
    found in the frames it held, not where it became sure."""
    x, truth = S.over(SR, "slow attack", 0.0, seed=3)
    (b,) = D.detect(x, SR)
    hop = D.params()["hop_s"]
    assert b.decided - b.at >= D.params()["min_frames"] * hop
    assert abs(b.at - truth[0]) <= 0.05


def test_rule_5_two_whistles_0_4_s_apart_are_two_blasts_and_the_second_stays_its_own() -> None:
    x, truth = S.over(SR, "two whistles 0.4 s apart", 0.0, seed=5)
    got = [b.at for b in D.detect(x, SR)]
    assert len(got) == 2
    assert all(abs(g - t) <= 0.03 for g, t in zip(got, truth, strict=True))


def test_rule_5_the_stream_hears_what_detect_hears_in_any_block_size() -> None:
    x, _ = S.scene(SR, 6.0, seed=2, whistles=2, distractors=False)
    whole = D.detect(x, SR)
    st = D.Stream(SR)
    parts = [b for i in range(0, len(x), 777) for b in st.push(x[i : i + 777])]
    assert parts == whole and len(whole) == 2


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng for a voice")
def test_rule_5_whistle_under_speech_at_its_onset_is_stamped_near_it() -> None:
    x, truth = S.over(SR, "speech", 0.0, seed=4)
    got = D.detect(x, SR)
    assert len(got) == 1 and abs(got[0].at - truth[0]) <= 0.05 < got[0].decided - got[0].at


@pytest.mark.parametrize(("sr", "seed"), [(16000, 16006), (48000, 48006)])
def test_rule_5_whistle_blown_while_the_horn_sounds_is_heard_at_its_onset(sr: int,
                                                                         seed: int) -> None:
    """The horn starts first and its harmonics cover the whistle band (here the whistle's
    tones lie on them): the tones that rose since the horn began are kept, and the look
    back stops where they rose, not at the horn's start."""
    x, truth = S.over(sr, "horn", -6.0, seed=seed)
    got = D.detect(x, sr)
    assert len(got) == 1 and abs(got[0].at - truth[0]) <= 0.03


def test_rule_5_a_horn_alone_and_a_horn_then_a_lip_whistle_are_not_a_whistle() -> None:
    """What rose over a horn is kept only as the whistle's tones: one lip-whistled tone over
    a horn that already sounded is still no whistle."""
    x = _place([(0.3, S.horn(SR, 2.0, 330.0)), (0.9, 0.5 * S.lip_whistle(SR, 1.0, 2500.0))],
               3.0, noise=0.05)
    assert D.detect(x, SR) == []


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng for a voice")
def test_rule_5_a_voice_s_formants_at_16_khz_are_not_a_whistle_s_chambers() -> None:
    """At 16 kHz a voice's harmonics merge into broad formant peaks, two of which held a
    vowel long enough to look like a pea-less whistle (this scene's 48.4 s); a chamber's tone
    is sharp (``sharp_db`` over the bins ``sharp_bins`` away), a formant is not."""
    x, _ = S.scene(SR, 60.0, seed=9, voices=True)
    assert D.detect(x[int(47.5 * SR) : int(49.5 * SR)], SR) == []
