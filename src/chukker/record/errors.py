"""The record's refusals: :class:`RecordError` with a code, params and the field's path.

>>> str(RecordError(code="field_type", path="teams.A.name", expected="a string"))
'teams.A.name: must be a string'
>>> e = RecordError("Expecting value", 1, 5)
>>> str(e), e.code
('line 1, column 5: the text is not well-formed: Expecting value', 'not_well_formed')
"""

from __future__ import annotations

from typing import Any

from chukker.engine.errors import MESSAGES as ENGINE_MESSAGES
from chukker.engine.errors import render
from chukker.errors import ChukkerError, words

#: in the one registry of words (:data:`chukker.errors.words.RECORD`)
MESSAGES: dict[str, str] = words.RECORD


class RecordError(ChukkerError):
    """A record that cannot be read: malformed text (with line and column), a field that
    breaks the record's definitions, or a bad header.

    ``code`` and ``params`` say why (``params["path"]`` names the field, e.g.
    ``teams.A.players[0].handicap`` or ``event 4.team``); the message is the English
    template of the code, after the line and column where there are some.
    """

    def __init__(
        self,
        detail: str | None = None,
        line: int | None = None,
        column: int | None = None,
        *,
        code: str | None = None,
        **params: Any,
    ) -> None:
        self.line = line
        self.column = column
        if code is None:
            code = "not_well_formed"
            params.setdefault("detail", detail or "")
        self.code = code
        self.params: dict[str, Any] = params
        text = _render(code, params)
        if line is not None:
            self.params.update(line=line, column=column)
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(f"{where}{text}")


def _render(code: str, params: dict[str, Any]) -> str:
    template = MESSAGES.get(code) or ENGINE_MESSAGES.get(code) or code
    return render(template, params)
