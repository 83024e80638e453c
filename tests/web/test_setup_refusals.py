"""A refusal of the match set-up in the user's language (the project's rule: every refusal a
user sees has a stable code and messages in en, es and it): the engine's set-up codes, the
answer of ``POST /api/matches`` and the new-match page."""

from __future__ import annotations

import html
import string
from typing import Any

import pytest
from tests.engine.test_setup_codes import CASES, refused
from tests.web.test_pages import FORM, csrf_of

from chukker.engine.errors import MESSAGES
from chukker.i18n import translations
from chukker.web.refusals import bad_setup_text, refusal_message, setup_said

SETUP_CODES = sorted(c for c in MESSAGES if c.startswith("setup_") and c != "setup_invalid")


def fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("lang", ["es", "it"])
@pytest.mark.parametrize("code", SETUP_CODES)
def test_every_setup_code_has_its_own_sentence_in_es_and_it(code: str, lang: str) -> None:
    template = MESSAGES[code]
    translated = translations(lang).gettext(template)
    assert translated != template, f"{lang}: {code} untranslated"
    assert fields(translated) == fields(template)


@pytest.mark.parametrize("lang", ["en", "es", "it"])
@pytest.mark.parametrize(("edit", "code", "text"), CASES, ids=[c[2][:60] for c in CASES])
def test_every_setup_refusal_fills_its_sentence_from_its_params(
    edit: Any, code: str, text: str, lang: str,
) -> None:
    e = refused(edit)
    said = refusal_message(e.code, e.params, lang)
    assert said == setup_said(e.code, e.params, lang, str(e))
    assert said.startswith(f"{e.path}: ")
    assert "{" not in said.replace('{"period_s"', "").replace("{'A'", "")  # every field filled
    assert (said == text) == (lang == "en")


def _post(client: Any, header: dict[str, Any], query: str = "",
          **headers: str) -> dict[str, Any]:
    r = client.post(f"/api/matches{query}", json=header, headers=headers)
    assert r.status_code == 422, r.text
    body: dict[str, Any] = r.json()
    return body


@pytest.mark.parametrize(("how", "text"), [
    ({"headers": {"accept-language": "es-AR,es;q=0.9"}},
     "options.tiebreak: valor desconocido 'coin' (uno de extra-periods, shootout)"),
    ({"query": "?lang=it"},
     "options.tiebreak: valore sconosciuto 'coin' (uno tra extra-periods, shootout)"),
    ({}, "options.tiebreak: unknown value 'coin' (one of extra-periods, shootout)"),
])
def test_post_matches_a_bad_option_is_answered_in_the_callers_language(
    client: Any, header: dict[str, Any], how: dict[str, Any], text: str,
) -> None:
    header["options"]["tiebreak"] = "coin"
    j = _post(client, header, how.get("query", ""), **how.get("headers", {}))
    assert j["params"]["path"] == "options.tiebreak" and j["params"]["value"] == "'coin'"
    assert j["text"] == text
    assert j["message"] == "options.tiebreak: unknown value 'coin' (one of extra-periods, shootout)"


def test_post_matches_an_engine_rule_3_refusal_is_answered_in_spanish(
    client: Any, header: dict[str, Any],
) -> None:
    header["teams"]["A"]["players"] = header["teams"]["A"]["players"][:2]
    j = _post(client, header, "?lang=es")
    assert j["code"] == "players_count"
    assert j["text"] == ("teams.A.players: Regla 3: un equipo de arena tiene 3 jugadores "
                         "numerados 1-3; se recibió 2")


@pytest.mark.parametrize(("lang", "text"), [
    ("es", "la configuración del partido no es válida: options.tiebreak: valor desconocido "
           "'coin' (uno de 'extra-periods', 'shootout')"),
    ("it", "la configurazione della partita non è valida: options.tiebreak: valore "
           "sconosciuto 'coin' (uno tra 'extra-periods', 'shootout')"),
])
def test_post_matches_bad_setup_carries_the_setup_code_its_params_and_the_callers_language(
    client: Any, header: dict[str, Any], monkeypatch: Any, lang: str, text: str,
) -> None:
    """``bad_setup``: the engine refuses a header the record's definitions let through
    (here the definitions are left out, as a header they do not yet know would be)."""
    from chukker.web.api import routes

    monkeypatch.setattr(routes, "check_header", lambda h: h)
    header["options"]["tiebreak"] = "coin"
    j = _post(client, header, **{"accept-language": lang})
    assert j["code"] == "bad_setup"
    p = j["params"]
    reason = "unknown value 'coin' (one of 'extra-periods', 'shootout')"
    assert (p["path"], p["reason"]) == ("options.tiebreak", reason)
    assert (j["path"], j["reason"]) == ("options.tiebreak", reason)
    assert p["setup_code"] == "setup_unknown_value"
    assert p["setup_params"] == {"path": "options.tiebreak", "value": "'coin'",
                                 "allowed": ["'extra-periods'", "'shootout'"]}
    assert j["message"] == f"options.tiebreak: {reason}"
    assert j["text"] == text


def test_bad_setup_without_a_sentence_of_its_own_keeps_the_english_reason() -> None:
    said = bad_setup_text("setup_invalid", {"path": "x", "detail": "no good"}, "x", "no good",
                          "es")
    assert said == "la configuración del partido no es válida: x: no good"


@pytest.mark.parametrize(("lang", "field", "value", "text"), [
    ("es", "team_A_p2_hcp", "lots", "teams.A.players[1].handicap: 'lots' no es un número entero"),
    ("it", "team_A_p2_hcp", "lots",
     "teams.A.players[1].handicap: 'lots' non è un numero intero"),
    ("en", "team_A_p2_hcp", "lots", "teams.A.players[1].handicap: 'lots' is not a whole number"),
    ("es", "team_B_captain", "9", "teams.B.captain: '9' no es un número de jugador"),
    ("es", "tiebreak", "coin", "options.tiebreak: valor desconocido 'coin' (uno de "
                               "extra-periods, shootout)"),
])
def test_new_match_form_shows_the_set_up_problem_in_the_pages_language(
    client: Any, lang: str, field: str, value: str, text: str,
) -> None:
    r = client.post(f"/new?lang={lang}",
                    data={**FORM, field: value, "csrf": csrf_of(client)})
    assert r.status_code == 422
    assert text in html.unescape(r.text)


def test_setup_said_of_an_unknown_language_is_english() -> None:
    e = refused(CASES[0][0])
    assert setup_said(e.code, e.params, "fr", str(e)) == str(e)


@pytest.mark.parametrize("lang", ["es", "it"])
def test_why_a_value_was_refused_is_said_in_the_refusals_language(lang: str) -> None:
    """Each reason the API's own checks give (``security.clean``, the header's) is one of
    ``REASONS`` and translated, numbers and all: a refusal in Spanish or Italian is one
    language throughout."""
    import re
    from pathlib import Path

    import chukker
    from chukker.web.refusals import REASONS, said_reason

    gettext = translations(lang).gettext
    assert [r for r in REASONS if gettext(r) == r] == []
    assert all(fields(gettext(r)) == fields(r) for r in REASONS)
    web = Path(chukker.__file__).parent / "web"
    given = {m for p in web.rglob("*.py") for m in re.findall(
        r'(?:BadInput\(path or "value", |"reason": )f?"([^"]+)"', p.read_text(encoding="utf-8"))}
    shaped = {re.sub(r"\{[^}]*\}", "{}", g) for g in given}
    assert shaped <= {re.sub(r"\{\w+\}", "{}", r) for r in REASONS}, shaped
    assert said_reason("a whole number from -2 to 10", gettext) in (
        "un número entero de -2 a 10", "un numero intero da -2 a 10")
    assert said_reason("an engine's own words", gettext) == "an engine's own words"


@pytest.mark.parametrize(("lang", "text"), [
    ("es", "la configuración del partido no es válida: teams.A.name: más de 60 caracteres"),
    ("it", "la configurazione della partita non è valida: teams.A.name: più di 60 caratteri"),
    ("en", "the match set-up is not valid: teams.A.name: longer than 60 characters"),
])
def test_post_matches_a_name_too_long_is_refused_in_the_callers_language(
    client: Any, header: dict[str, Any], lang: str, text: str,
) -> None:
    header["teams"]["A"]["name"] = "x" * 61
    j = _post(client, header, f"?lang={lang}")
    assert j["code"] == "invalid_header"
    assert j["params"] == {"field": "teams.A.name", "reason": "longer than 60 characters"}
    assert j["text"] == text
