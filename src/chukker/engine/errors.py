"""Errors of the engine. All subclass :class:`ValueError`.

Every refusal has a stable ``code`` (snake_case) and ``params`` (JSON values);
its English text is ``MESSAGES[code]`` formatted with the params, so any screen
can say it in its own language from the code and the params alone
(:func:`chukker.web.refusals.refusal_message`).

Formatting (:func:`render`): a parameter ``X_ms`` (milliseconds) is also
available as ``X`` in seconds (``"510.000 s"``); a list is joined with commas;
a parameter ``cause`` holding ``{"code": ..., "params": ...}`` renders as that
refusal's own message.

>>> message("ball_dead", {"period": 2, "since_ms": 510000})
'the ball is dead: period 2 ended at 510.000 s'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chukker.errors import ChukkerError, words


def fmt_s(ms: int) -> str:
    """Milliseconds as seconds with three decimals: ``fmt_s(512300) == '512.300 s'``."""
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    return f"{sign}{ms // 1000}.{ms % 1000:03d} s"


#: in the one registry of words (:data:`chukker.errors.words.ENGINE`)
MESSAGES: dict[str, str] = words.ENGINE


#: in the one registry of words (:data:`chukker.errors.words.CLUB`)
CLUB_MESSAGES: dict[str, str] = words.CLUB


def template_of(code: str, params: Mapping[str, Any]) -> str | None:
    """The English template of ``code`` with these ``params`` (a club's own when they name
    one), or ``None`` for an unknown code."""
    if "club" in params:
        t = CLUB_MESSAGES.get(code)
        if t is not None:
            return t
    return MESSAGES.get(code) or NOTICES.get(code)


#: in the one registry of words (:data:`chukker.errors.words.NOTICES`)
NOTICES: dict[str, str] = words.NOTICES


def _value(v: Any) -> str:
    if isinstance(v, list | tuple):
        return ", ".join(_value(x) for x in v)
    return str(v)


def render(
    template: str,
    params: Mapping[str, Any],
    cause: Callable[[str, Mapping[str, Any]], str] | None = None,
) -> str:
    """``template`` formatted with ``params`` (see the module's formatting rules)."""
    vals: dict[str, str] = {}
    for k, v in params.items():
        if k == "cause" and isinstance(v, Mapping):
            sub = v.get("params", {})
            code = str(v.get("code", ""))
            vals[k] = cause(code, sub) if cause else message(code, sub)
            continue
        vals[k] = _value(v)
        if k.endswith("_ms") and isinstance(v, int) and not isinstance(v, bool):
            vals[k[:-3]] = fmt_s(v)
    try:
        return template.format(**vals)
    except (KeyError, IndexError, ValueError):
        return template


def message(code: str, params: Mapping[str, Any]) -> str:
    """The English text of a refusal (or of a notice)."""
    return render(template_of(code, params) or code, params)


#: set-up codes with no sentence of their own: their ``detail`` is the engine's English
DETAIL_ONLY: frozenset[str] = frozenset({"setup_invalid"})


def setup_sentence(
    code: str, params: Mapping[str, Any], gettext: Callable[[str], str] | None = None
) -> str | None:
    """A :class:`SetupError`'s sentence (``{path}: ...``) from its code and params, in the
    language of ``gettext`` (English without one); ``None`` for a code with no sentence of
    its own (:data:`DETAIL_ONLY`, whose ``detail`` is English) or an unknown one.

    >>> setup_sentence("setup_not_bool", {"path": "options.handicap", "value": "'yes'"})
    "options.handicap: must be true or false, got 'yes'"
    """
    template = MESSAGES.get(code)
    if template is None or code in DETAIL_ONLY:
        return None
    return render(gettext(template) if gettext is not None else template, params)


def show(value: Any) -> str:
    """A raw (possibly hostile) input value for a message: its repr, at most 60 characters."""
    try:
        r = repr(value)
    except Exception:  # noqa: BLE001 - pragma: no cover - repr of a JSON value does not fail
        r = "?"
    return r if len(r) <= 60 else r[:57] + "..."


class SetupError(ChukkerError):
    """The record's header (rules, options, teams) is not a valid arena match.

    ``path`` names the offending field, e.g. ``teams.A.players``; ``code`` and
    ``params`` say why (``params`` always holds ``path``).
    """

    def __init__(
        self, path: str, reason: str, code: str = "setup_invalid", **params: Any
    ) -> None:
        self.path = path
        self.reason = reason
        self.code = code
        self.params: dict[str, Any] = {"path": path, **params}
        if code == "setup_invalid":
            self.params.setdefault("detail", reason)
        super().__init__(f"{path}: {reason}")


class EngineError(ChukkerError):
    """An operator event was refused.

    ``index`` is the event's position in the record counting from 1,
    ``at_ms`` its time, ``code`` and ``params`` why it was refused and
    ``reason`` the English text of that.

    >>> e = EngineError(14, "goal", 512300, "ball_dead", {"period": 2, "since_ms": 510000})
    >>> str(e)
    'event 14 (goal at 512.300 s): the ball is dead: period 2 ended at 510.000 s'
    >>> e.code, e.params["period"]
    ('ball_dead', 2)
    """

    def __init__(
        self,
        index: int,
        type_: str,
        at_ms: int | None,
        code: str,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.index = index
        self.type = type_
        self.at_ms = at_ms
        self.code = code
        self.params: dict[str, Any] = dict(params or {})
        self.reason = message(code, self.params)
        where = f"{type_} at {fmt_s(at_ms)}" if at_ms is not None else type_
        super().__init__(f"event {index} ({where}): {self.reason}")

    def to_dict(self) -> dict[str, Any]:
        """The refusal as JSON: event number, code, params and English message."""
        return {
            "event": self.index,
            "code": self.code,
            "params": self.params,
            "message": self.reason,
        }
