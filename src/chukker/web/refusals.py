"""Refusals in the user's language: a code and its params to a sentence.

Every refusal the engine, the record loader or the API gives (a
:class:`chukker.errors.ChukkerError`, and every notice in the engine's report) has a
stable ``code`` and JSON ``params``; the English sentence is a template per code in the
one registry (:mod:`chukker.errors.words`, read through :func:`chukker.errors.template`).
Spanish and Italian come from the Babel catalogues
``locales/{es,it}/LC_MESSAGES/refusals.po`` (and ``api.po``,
``tournament-refusals.po``), whose msgid is the English template.

>>> refusal_message("ball_dead", {"period": 2, "since_ms": 510000}, "es")
'la bocha está muerta: el período 2 terminó a los 510.000 s'
>>> refusal_message("ball_dead", {"period": 2, "since_ms": 510000}, "en")
'the ball is dead: period 2 ended at 510.000 s'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from chukker.engine.errors import render, setup_sentence
from chukker.errors import TEMPLATES
from chukker.errors import template as template_of
from chukker.i18n import LANGUAGES, translations

#: what a field should have been (a refusal's ``expected``): English phrases, each
#: translated in the catalogues as a template is
EXPECTED: frozenset[str] = frozenset({
    "1-32 characters of a-z, 0-9 and -", "JSON data", "[x, y] in yards", "a finite number",
    "a list of events", "a list of mounts", "a list of players", "a list",
    "a number of seconds", "a number", "a string", "a whole number",
    "an object of two teams", "an object", "the end of both teams", "true or false",
    # record 1.3: the grooms' plan
    "a list of mount ids", "an object of player numbers to lists of mount ids",
    "keyed by a player's number, 1-99",
})

#: why a value was refused (a refusal's ``reason``, from the API's own checks:
#: :func:`chukker.web.security.clean` and the header's): English templates, each
#: translated in the catalogues; the numbers and the type are filled in after
REASONS: tuple[str, ...] = (
    "not an object", "unknown field", "number out of range",
    "not valid Unicode (a lone surrogate)", "longer than {limit} characters",
    "nested deeper than {depth} levels", "more than {n} items", "more than {n} fields",
    "a whole number from {lo} to {hi}", "unexpected {kind}",
)
_REASON_PATTERNS = [
    (re.compile("".join(f"(?P<{part[1:-1]}>[-\\w]+)" if part.startswith("{") else re.escape(part)
                        for part in re.split(r"(\{\w+\})", t))), t)
    for t in REASONS
]


def said_reason(reason: str, gettext: Callable[[str], str]) -> str:
    """A reason of :data:`REASONS`, filled in, said with ``gettext``; any other as it is.

    >>> from chukker.i18n import translations
    >>> said_reason("longer than 60 characters", translations("es").gettext)
    'más de 60 caracteres'
    """
    for pattern, template in _REASON_PATTERNS:
        m = pattern.fullmatch(reason)
        if m is not None:
            return gettext(template).format(**m.groupdict())
    return reason


def templates() -> dict[str, str]:
    """Every known code's English template (engine refusals and notices, record, the
    match API, the tournament API): :data:`chukker.errors.TEMPLATES`."""
    return dict(TEMPLATES)


def refusal_message(code: str, params: Mapping[str, Any] | None, lang: str) -> str:
    """The sentence for refusal ``code`` with ``params`` in ``lang`` (en, es or it).

    An unknown code gives the code itself; an unknown language gives English.
    """
    template = template_of(code, params)
    if template is None:
        return code
    if lang != "en" and lang in LANGUAGES:
        gettext = translations(lang).gettext
        template = gettext(template)
        said = (params or {}).get("expected")
        if isinstance(said, str) and said in EXPECTED:  # "a whole number", ... (said, too)
            params = {**(params or {}), "expected": gettext(said)}
        why = (params or {}).get("reason")
        if isinstance(why, str):  # "unknown field", "longer than 60 characters", ...
            params = {**(params or {}), "reason": said_reason(why, gettext)}

    def cause(sub_code: str, sub_params: Mapping[str, Any]) -> str:
        return refusal_message(sub_code, sub_params, lang)

    return render(template, params or {}, cause)


def said_or(code: str, params: Mapping[str, Any] | None, lang: str, english: str) -> str:
    """:func:`refusal_message` for a known code; ``english`` (the refusal's own text)
    for a code without a template."""
    return refusal_message(code, params, lang) if code in TEMPLATES else english


def setup_said(code: str, params: Mapping[str, Any], lang: str, english: str) -> str:
    """A :class:`~chukker.engine.SetupError` (``path: reason``) in ``lang`` from its code
    and params (:func:`chukker.engine.errors.setup_sentence`, as a tournament's
    ``match_options`` says it); ``english`` (``str(e)``) where the code has no sentence of
    its own (the fallback ``setup_invalid``).

    >>> setup_said("setup_not_bool", {"path": "options.handicap", "value": "'yes'"}, "it",
    ...            "options.handicap: must be true or false, got 'yes'")
    "options.handicap: deve essere true o false; ricevuto 'yes'"
    """
    gettext = translations(lang).gettext if lang in LANGUAGES else None
    return setup_sentence(code, params, gettext) or english


def bad_setup_text(setup_code: str, setup_params: Mapping[str, Any], path: str, reason: str,
                   lang: str) -> str:
    """The API's ``bad_setup`` answer in ``lang``: its template with the set-up problem's
    own sentence (without its path) as the reason."""
    said = setup_said(setup_code, setup_params, lang, f"{path}: {reason}")
    return refusal_message("bad_setup", {"path": path, "reason": said.removeprefix(f"{path}: ")},
                           lang)
