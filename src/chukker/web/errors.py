"""The web's refusals: a :class:`~chukker.errors.ChukkerError`'s code to an HTTP status,
its JSON body, and the OpenAPI's account of them. The web alone knows HTTP: the live
service and the floors below raise codes and params (``chukker.live.ServiceError``), and
their words are in the one registry (:mod:`chukker.errors.words`).

Every non-2xx answer of the API is JSON::

    {"error": <code>, "code": <code>, "params": {...}, "message": <English text>, ...}

:data:`STATUS` gives each code of the live service and the API its status; an engine's
refusal of an event (:class:`~chukker.live.EventRefused`) is a 409, a failure nobody
asked for (``server_error``, with an ``incident`` id also in the log) a 500, and any
other code a 422. A refusal that says when to come back (``retry_after_s``) has a
``Retry-After`` header.

>>> message("rate_limited", {"retry_after": 3})
'too many requests from this address; try again in 3 s'
>>> message("no_such_code", {})
'no_such_code'
>>> from chukker.live import ServiceError
>>> status_of(ServiceError("unknown_match", params={"match_id": "x"}))
404
>>> headers_of(ServiceError("busy", params={"retry_after": 1}))
{'retry-after': '1'}
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

from chukker.errors import API_TEMPLATES
from chukker.live import EventRefused, ServiceError

#: the match API's templates (its own codes and the caps'), from the one registry
MESSAGES: dict[str, str] = API_TEMPLATES

#: the HTTP status of each code the live service and the API refuse with
STATUS: dict[str, int] = {
    "bad_request": 422, "bad_setup": 422, "has_events": 422, "at_not_allowed": 422,
    "invalid_event": 422, "invalid_header": 422, "unknown_event_type": 422,
    "no_token": 401,
    "bad_token": 403, "committee_only": 403, "organiser_required": 403,
    "unknown_match": 404, "not_found": 404,
    "command_reused": 409, "quarantined": 409,
    "rate_limited": 429, "too_many_bad_tokens": 429,
    "server_error": 500,
    "busy": 503, "storage_full": 503, "store_unavailable": 503, "too_many_streams": 503,
}


class HttpRefusal(ServiceError):
    """A refusal of the web's own whose status is not its code's alone (the organiser's
    token missing, 401, or wrong, 403)."""

    def __init__(self, status: int, code: str, message: str | None = None, *,
                 params: dict[str, Any] | None = None, **extra: Any) -> None:
        self.status = status
        super().__init__(code, message, params=params, **extra)


def status_of(e: ServiceError) -> int:
    """The HTTP status of the refusal ``e`` (see the module)."""
    if isinstance(e, HttpRefusal):
        return e.status
    if isinstance(e, EventRefused):
        return 409
    return STATUS.get(e.code, 422)


def headers_of(e: ServiceError) -> dict[str, str]:
    """The headers of the refusal ``e``: ``Retry-After`` when it says when to come back,
    ``WWW-Authenticate`` when it asks for a token."""
    headers: dict[str, str] = {}
    if e.retry_after_s is not None:
        headers["retry-after"] = str(e.retry_after_s)
    if status_of(e) == 401:
        headers["www-authenticate"] = "Bearer"
    return headers


def body_of(e: ServiceError) -> dict[str, Any]:
    """The JSON body of the refusal ``e``."""
    return body(e.code, e.params, e.message, **e.extra)


def response(e: ServiceError) -> JSONResponse:
    """The refusal ``e`` as the API answers it."""
    return JSONResponse(body_of(e), status_code=status_of(e), headers=headers_of(e) or None)


def fill(template: str, params: dict[str, Any]) -> str:
    """``template`` with ``params`` filled in (as it is where a value is missing)."""
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError, AttributeError):
        return template


def message(code: str, params: dict[str, Any]) -> str:
    """The English text of ``code`` with ``params`` (the code itself if it has no template)."""
    template = MESSAGES.get(code)
    return code if template is None else fill(template, params)


def body(code: str, params: dict[str, Any] | None = None, text: str | None = None, /,
         **extra: Any) -> dict[str, Any]:
    """The JSON body of a refusal (``text``, the English message, is positional: an
    ``extra`` field may be named ``text``, the message in the caller's language).

    >>> body("unknown_match", {"match_id": "x"})["message"]
    'no match with id x'
    """
    p = dict(params or {})
    return {"error": code, "code": code, "params": p,
            "message": text if text is not None else message(code, p), **extra}


#: the JSON Schema of every refusal (the OpenAPI's ``ApiError``)
ERROR_SCHEMA: dict[str, Any] = {
    "title": "ApiError",
    "type": "object",
    "required": ["error", "code", "message"],
    "properties": {
        "error": {"type": "string", "description": "the same as code"},
        "code": {"type": "string", "description": "a code of the registry "
                 "(chukker.errors.words): the API's, the record's or the engine's"},
        "params": {"type": "object", "description": "the values filled into the message"},
        "message": {"type": "string", "description": "English text"},
        "text": {"type": "string", "description": "the message in the caller's language "
                 "(?lang=, else Accept-Language), where the operation says so"},
        "incident": {"type": "string", "description": "with a 500 (server_error): the id "
                     "under which the server logged what failed"},
    },
}


def document_errors(doc: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI ``doc`` with every 4xx/5xx of ``/api`` described as :data:`ERROR_SCHEMA`,
    each with the codes of :data:`STATUS` it may carry (``x-codes``; a 409 also carries
    the engine's refusals, a 422 the record's).

    FastAPI documents its own 422 body (``HTTPValidationError``), which the API
    never sends; operations on a match also answer 404 ``unknown_match``.

    >>> doc = {"paths": {"/api/m/{match_id}": {"get": {"responses": {"422": {}}}}}}
    >>> responses = document_errors(doc)["paths"]["/api/m/{match_id}"]["get"]["responses"]
    >>> sorted(responses), responses["404"]["x-codes"]
    (['404', '422'], ['not_found', 'unknown_match'])
    """
    doc.setdefault("components", {}).setdefault("schemas", {})["ApiError"] = ERROR_SCHEMA
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}
    for path, operations in doc.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for op in operations.values():
            responses = op.setdefault("responses", {})
            if "{match_id}" in path:
                responses.setdefault("404", {})
            for status, resp in responses.items():
                if status[:1] in ("4", "5"):
                    resp["description"] = resp.get("description") or message(
                        {"404": "unknown_match"}.get(status, "bad_request"), {})
                    resp["content"] = content
                    codes = sorted(c for c, s in STATUS.items() if str(s) == status)
                    if codes:
                        resp["x-codes"] = codes
    return doc
