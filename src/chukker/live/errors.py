"""Refusals of the live service, as the domain says them (no HTTP here: the web maps a
code to a status, :mod:`chukker.web.errors`): the roles a token gives,
:class:`ServiceError` (a refused request with a stable code, its params and English
text), :class:`EventRefused` (the engine refused an event), :class:`EngineFailure` (the
engine failed: nobody's request's fault), :class:`Quarantined`.

>>> ServiceError("unknown_match", params={"match_id": "x"}).message
'no match with id x'
>>> ServiceError("busy", params={"retry_after": 1}).retry_after_s
1
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from chukker.errors import API_TEMPLATES, ChukkerError
from chukker.store import StorageFull, StoreUnavailable, UnknownMatch


class Role(StrEnum):
    TIMEKEEPER = "timekeeper"
    COMMITTEE = "committee"


def english(code: str, params: dict[str, Any]) -> str:
    """The English text of the API's ``code`` with ``params`` (the code itself if it has
    no template; the template as it is where a value is missing)."""
    template = API_TEMPLATES.get(code)
    if template is None:
        return code
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError, AttributeError):
        return template


class ServiceError(ChukkerError):
    """A refused request: ``code`` a stable identifier, ``params`` its values (its English
    text is the code's template in :mod:`chukker.errors.words`), ``retry_after_s`` when
    the client may try again (from ``params["retry_after"]`` unless given), ``extra``
    fields the answer carries beside them."""

    def __init__(self, code: str, message: str | None = None, *,
                 params: dict[str, Any] | None = None, retry_after_s: int | None = None,
                 **extra: Any) -> None:
        self.code = code
        self.params = dict(params or {})
        again = self.params.get("retry_after")
        if retry_after_s is None and isinstance(again, int) and not isinstance(again, bool):
            retry_after_s = again
        self.retry_after_s = retry_after_s
        self.message = message if message is not None else english(code, self.params)
        self.extra = extra
        super().__init__(self.message)


class EventRefused(ServiceError):
    """The engine refused the event (its own code and params: ``chukker.engine.errors``);
    ``extra`` holds its ``reason`` and ``index``."""


class EngineFailure(ServiceError):
    """The engine failed on an event in a way it never refuses on purpose (a bug): code
    ``server_error``, and ``incident``, the id under which the traceback was logged."""

    def __init__(self, incident: str) -> None:
        self.incident = incident
        super().__init__("server_error", params={"incident": incident}, incident=incident)


class Quarantined(UnknownMatch):
    """A stored match the engine cannot replay: kept aside, never loaded, never fatal."""

    code = "quarantined"

    def __init__(self, match_id: str, reason: str) -> None:
        super().__init__(match_id)
        self.reason = reason
        self.params = {"match_id": match_id, "reason": reason}
        self.args = (english("quarantined", self.params),)

    def __str__(self) -> str:
        return str(self.args[0])


log = logging.getLogger("chukker.live")


def store_refusal(e: StorageFull | StoreUnavailable) -> ServiceError:
    """The refusal of a write the store could not take now: its own code (never
    ``busy``, never a 500), with a ``retry_after`` (the web's ``Retry-After``) so that a
    console keeps the key press and sends it again; nothing was stored.

    >>> store_refusal(StorageFull("database or disk is full")).code
    'storage_full'
    >>> store_refusal(StoreUnavailable("connection refused")).retry_after_s
    2
    """
    if isinstance(e, StorageFull):
        return ServiceError("storage_full", params={"retry_after": 5})
    return ServiceError("store_unavailable", params={"retry_after": 2})


def engine_failure(match_id: str, event: Mapping[str, Any]) -> EngineFailure:
    """An unexpected exception of the engine (being handled) as a failure that is nobody's
    request's fault: its traceback logged under a new incident id, which the answer
    carries too; the client is not told the event was wrong.

    >>> try:
    ...     1 / 0
    ... except ZeroDivisionError:
    ...     len(engine_failure("m1", {"type": "goal"}).incident)
    12
    """
    incident = secrets.token_hex(6)
    log.exception("incident %s: match %s: the engine failed on a %s event", incident,
                  match_id, str(event.get("type", "?"))[:40])
    return EngineFailure(incident)
