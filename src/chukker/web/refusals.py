"""Refusals in the user's language: a code and its params to a sentence.

Every refusal the engine, the record loader or the API gives (and every notice
in the engine's report) has a stable
``code`` and JSON ``params``; the English sentence is a template per code
(:data:`chukker.engine.errors.MESSAGES`, :data:`chukker.record.errors.MESSAGES`
``chukker.live.api_errors.MESSAGES`` and ``chukker.tournament.refusals.MESSAGES``).
Spanish and Italian come from the Babel catalogues
``locales/{es,it}/LC_MESSAGES/refusals.po`` (and ``api.po``,
``tournament-refusals.po``), whose msgid is the English template.

>>> refusal_message("ball_dead", {"period": 2, "since_ms": 510000}, "es")
'la bocha está muerta: el período 2 terminó a los 510.000 s'
>>> refusal_message("ball_dead", {"period": 2, "since_ms": 510000}, "en")
'the ball is dead: period 2 ended at 510.000 s'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chukker.engine.errors import MESSAGES as ENGINE_MESSAGES
from chukker.engine.errors import NOTICES, render
from chukker.i18n import LANGUAGES, translations
from chukker.live.api_errors import MESSAGES as API_MESSAGES
from chukker.record.errors import MESSAGES as RECORD_MESSAGES
from chukker.tournament.refusals import MESSAGES as TOURNAMENT_MESSAGES


def templates() -> dict[str, str]:
    """Every known code's English template (engine refusals and notices, record, the
    match API, the tournament API)."""
    out = dict(ENGINE_MESSAGES)
    out.update(NOTICES)
    out.update(RECORD_MESSAGES)
    for table in (API_MESSAGES, TOURNAMENT_MESSAGES):
        for code, text in table.items():
            out.setdefault(code, text)
    return out


def refusal_message(code: str, params: Mapping[str, Any] | None, lang: str) -> str:
    """The sentence for refusal ``code`` with ``params`` in ``lang`` (en, es or it).

    An unknown code gives the code itself; an unknown language gives English.
    """
    template = templates().get(code)
    if template is None:
        return code
    if lang != "en" and lang in LANGUAGES:
        template = translations(lang).gettext(template)

    def cause(sub_code: str, sub_params: Mapping[str, Any]) -> str:
        return refusal_message(sub_code, sub_params, lang)

    return render(template, params or {}, cause)
