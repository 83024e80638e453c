"""Refusals of the live service: the roles a token gives, :class:`ServiceError` (a refused
request with a stable code and its English text), :class:`Quarantined`.

>>> ServiceError(404, "unknown_match", params={"match_id": "x"}).body()["message"]
'no match with id x'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from chukker.live import api_errors
from chukker.store import UnknownMatch


class Role(StrEnum):
    TIMEKEEPER = "timekeeper"
    COMMITTEE = "committee"


class ServiceError(ValueError):
    """A refused request: ``status`` is the HTTP status, ``code`` a stable identifier,
    ``params`` its values (the English text comes from ``chukker.live.api_errors``)."""

    def __init__(self, status: int, code: str, message: str | None = None, *,
                 params: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
                 **extra: Any) -> None:
        self.status = status
        self.code = code
        self.params = dict(params or {})
        self.message = message if message is not None else api_errors.message(code, self.params)
        self.headers = headers
        self.extra = extra
        super().__init__(self.message)

    def body(self) -> dict[str, Any]:
        return api_errors.body(self.code, self.params, self.message, **self.extra)


class Quarantined(UnknownMatch):
    """A stored match the engine cannot replay: kept aside, never loaded, never fatal."""

    def __init__(self, match_id: str, reason: str) -> None:
        super().__init__(match_id)
        self.reason = reason
        self.args = (api_errors.message("quarantined",
                                        {"match_id": match_id, "reason": reason}),)

    def __str__(self) -> str:
        return str(self.args[0])
