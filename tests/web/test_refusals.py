"""Every refusal code has an English template and a Spanish and an Italian translation."""

from __future__ import annotations

import string

import pytest

from chukker.engine import EngineError, Match
from chukker.engine.simulate import default_setup
from chukker.i18n import translations
from chukker.web.refusals import refusal_message, templates


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("lang", ["es", "it"])
def test_every_refusal_code_is_translated_with_the_same_placeholders(lang: str) -> None:
    catalog = translations(lang)
    missing, wrong = [], []
    for code, template in sorted(templates().items()):
        assert template, code
        translated = catalog.gettext(template)
        if translated == template and fields(template) != {"detail"}:
            missing.append(code)
        elif fields(translated) != fields(template):
            wrong.append(code)
    assert not missing, f"{lang}: untranslated codes {missing}"
    assert not wrong, f"{lang}: placeholders differ in {wrong}"


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "the ball is dead: period 1 ended at 450.000 s"),
        ("es", "la bocha está muerta: el período 1 terminó a los 450.000 s"),
        ("it", "la palla è morta: il periodo 1 è finito a 450.000 s"),
    ],
)
def test_an_engine_refusal_in_each_language(lang: str, expected: str) -> None:
    m = Match(default_setup())
    m.apply({"at": 0, "type": "bowl_in"})
    with pytest.raises(EngineError) as e:
        m.apply({"at": 460, "type": "goal", "team": "A"})
    assert refusal_message(e.value.code, e.value.params, lang) == expected
    assert refusal_message(e.value.code, e.value.params, "en") == e.value.reason


def test_unknown_code_or_language_falls_back() -> None:
    assert refusal_message("no_such_code", {}, "es") == "no_such_code"
    assert refusal_message("not_started", {}, "fr") == "the ball is dead: the match has not started"


def test_every_refusal_template_starts_in_lowercase_as_the_rest_of_a_sentence_does() -> None:
    """The convention of every refusal (engine, record, match and tournament API): a
    lowercase clause, shown after a label or inside another refusal (``{cause}``); only
    a name (``Rule 5``) starts with a capital."""
    capitals = {code: t for code, t in templates().items()
                if t[:1].isupper() and not t.startswith("Rule ")}
    assert capitals == {}


@pytest.mark.parametrize("lang", ["es", "it"])
def test_what_a_field_should_have_been_is_said_in_the_refusals_language(lang: str) -> None:
    """Each ``expected`` phrase the record, the engine and the API give is translated,
    so that a refusal in Spanish or Italian is one language throughout."""
    import re
    from pathlib import Path

    import chukker
    from chukker.i18n import translations
    from chukker.web.refusals import EXPECTED

    src = Path(chukker.__file__).parent
    given = {m for p in src.rglob("*.py")
             for m in re.findall(r'expected="([^"]+)"', p.read_text(encoding="utf-8"))}
    assert given <= EXPECTED, given - EXPECTED
    gettext = translations(lang).gettext
    assert [e for e in EXPECTED if gettext(e) == e] == []
    said = refusal_message("field_type", {"path": "teams", "expected": "an object of two teams"},
                           lang)
    assert "two teams" not in said and "teams" in said
