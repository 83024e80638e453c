"""The one base of chukker's refusals and failures, and where their words are.

Every refusal (a request, a record, an event, a file the project will not take) and
every failure the project raises on purpose is a :class:`ChukkerError`: a
:class:`ValueError` with a stable ``code`` (snake_case) and JSON ``params``. Its English
sentence is the code's template in the one registry (:mod:`chukker.errors.words`), filled
from the params; Spanish and Italian come from the Babel catalogs keyed by that template
(:func:`chukker.web.refusals.refusal_message`). Nothing here knows HTTP: the web alone
maps a code to a status (:mod:`chukker.web.errors`). This package imports only the
standard library, so every floor, the engine included, may import it.

>>> e = ChukkerError("no match with id x", code="unknown_match", params={"match_id": "x"})
>>> isinstance(e, ValueError), e.code, e.params
(True, 'unknown_match', {'match_id': 'x'})
>>> template("interval_running", {"club": "Club"}).endswith("(club rules: {club})")
True
>>> template("no_such_code", {}) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chukker.errors import words

__all__ = ["API_TEMPLATES", "TEMPLATES", "ChukkerError", "template", "words"]


class ChukkerError(ValueError):
    """A refusal or a failure: ``code`` (a key of :mod:`chukker.errors.words`, or the
    class's own default) and ``params`` (JSON values filled into its template).

    A subclass may set ``code`` and ``params`` itself before calling ``__init__`` (they
    are kept), name a default ``code`` as a class attribute, or pass them here.
    """

    code: str = "refused"
    params: dict[str, Any]

    def __init__(self, *args: object, code: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        super().__init__(*args)
        if code is not None:
            self.code = code
        if params is not None or "params" not in self.__dict__:
            self.params = dict(params or {})


def _merged() -> dict[str, str]:
    out = dict(words.ENGINE)
    out.update(words.NOTICES)
    out.update(words.RECORD)
    for table in (words.API, words.LIMITS, words.TOURNAMENT):
        for code, text in table.items():
            out.setdefault(code, text)
    return out


#: every code's English template: the engine's refusals and notices, the record's, then
#: the API's, the caps' and the tournament API's (a code two sections share,
#: :data:`~chukker.errors.words.SHARED`, is said as the earlier section says it)
TEMPLATES: dict[str, str] = _merged()

#: the match API's view: its own codes and the caps' (``too_deep`` as a parser's cap)
API_TEMPLATES: dict[str, str] = {**words.API, **words.LIMITS}


def template(code: str, params: Mapping[str, Any] | None = None) -> str | None:
    """The English template of ``code`` with these ``params`` (a club's own when they
    name one: :data:`~chukker.errors.words.CLUB`), ``None`` for an unknown code."""
    if params and "club" in params:
        club = words.CLUB.get(code)
        if club is not None:
            return club
    return TEMPLATES.get(code)
