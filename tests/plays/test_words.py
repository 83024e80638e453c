"""Evidence in words: every sentence in en, es and it; every candidate said."""

from __future__ import annotations

import re

import pytest

from chukker.i18n import translations
from chukker.plays import detect, shipped
from chukker.plays.candidates import Candidate, Clause
from chukker.plays.gps import NOT_RUN_ON_GPS, NOT_RUN_WITHOUT_BALL
from chukker.plays.synthetic import generated_play
from chukker.plays.words import SENTENCES, TEAM_WORDS, describe, variant

FIELDS = re.compile(r"%\((\w+)\)s")


@pytest.mark.parametrize("lang", ["es", "it"])
def test_plays_every_evidence_sentence_is_translated(lang: str) -> None:
    tr = translations(lang)
    for key, en in SENTENCES.items():
        out = tr.gettext(en)
        assert out != en, f"{lang}: {key} is not translated"
        assert sorted(FIELDS.findall(out)) == sorted(FIELDS.findall(en)), (lang, key)
    for word in TEAM_WORDS.values():
        assert tr.gettext(word) != word
    for why in (*NOT_RUN_ON_GPS.values(), *NOT_RUN_WITHOUT_BALL.values()):
        assert tr.gettext(why) != why, (lang, why)


def _all_candidates() -> list[Candidate]:
    cands = [c for s in shipped() for c in detect(s.tracking())]
    for seed in range(4):
        for mode in ("melee", "gallop", "slow"):
            cands += detect(generated_play(seed, seconds=8.0, mode=mode))
    return cands


def test_plays_every_candidate_is_said_in_three_languages() -> None:
    cands = _all_candidates()
    seen = {variant(c) for c in cands}
    assert {"12", "13a steep", "13b", "13f", "13g turned", "13i", "13k 5b"} <= seen
    for c in cands:
        texts = {lang: describe(c, lang) for lang in ("en", "es", "it")}
        for lang, text in texts.items():
            assert "?" not in text and "%(" not in text, (lang, c, text)
        assert texts["es"] != texts["en"] and texts["it"] != texts["en"]


def test_plays_evidence_sentence_of_the_issue() -> None:
    c = Candidate(
        Clause.R13B,
        "white",
        2,
        10.0,
        11.2,
        {
            "against": "blue:1",
            "crossings": 3,
            "span_s": 1.2,
            "min_ahead_yd": 4.0,
            "max_ahead_yd": 6.0,
            "galloping_speed_yd_s": 14.0,
        },
    )
    assert describe(c) == (
        "White 2 crossed Blue 1's line 3 times within 1.2 s, 4 to 6 yards ahead, Blue 1 at 14 yd/s."
    )
    assert describe(c, "es").startswith("Blanco 2 cruzó la línea de Azul 1 3 veces en 1,2 s")
