"""The API's own refusal codes and their English templates.

Every non-2xx answer of the API is JSON::

    {"error": <code>, "code": <code>, "params": {...}, "message": <English text>, ...}

``MESSAGES`` maps each API-level code to an English ``str.format`` template
filled from ``params``; Spanish and Italian are in
``web/locales/{es,it}/LC_MESSAGES/api.po`` (msgid = the template).
Engine refusals keep the engine's own codes (``chukker.engine.errors``).

>>> message("rate_limited", {"retry_after": 3})
'too many requests from this address; try again in 3 s'
>>> message("no_such_code", {})
'no_such_code'
"""

from __future__ import annotations

from typing import Any

from chukker.limits import MESSAGES as LIMIT_MESSAGES

MESSAGES: dict[str, str] = {
    "bad_request": "the request is not valid: {problems}",
    "bad_setup": "the match set-up is not valid: {path}: {reason}",
    "bad_token": "that token does not belong to this match",
    "busy": "the server is busy; try again in {retry_after} s with the same command_id",
    "storage_full": "not stored: the server's disk is full (the operator must free space); "
                    "try again in {retry_after} s with the same command_id",
    "store_unavailable": "not stored: the server cannot reach its database now; "
                         "try again in {retry_after} s with the same command_id",
    "command_reused": "command_id {command_id} was already used for event {seq} "
                      "with a different content",
    "committee_only": "the match is final: only the committee may undo (Rule 18)",
    "at_not_allowed": "leave 'at' out of the event: send it beside 'event' "
                      "(or not at all: the server stamps each event's time)",
    "has_events": "create the match without events, then post them one by one",
    "invalid_event": "the event is not valid: {field}: {reason}",
    "invalid_header": "the match set-up is not valid: {field}: {reason}",
    "invalid_id": "that is not a match id",
    "no_token": "send the timekeeper's or the committee's token as "
                "'Authorization: Bearer <token>'",
    "not_found": "nothing here",
    "metrics_token_required": "the metrics need the metrics token (setting metrics_token), "
                              "sent as 'Authorization: Bearer <token>'",
    "organiser_required": "creating matches needs the organiser's token, sent as "
                          "'Authorization: Bearer <token>'",
    "quarantined": "match {match_id} cannot be replayed ({reason}); it is kept aside and "
                   "the committee can export its stored events",
    "rate_limited": "too many requests from this address; try again in {retry_after} s",
    "refused": "refused: {reason}",
    "too_large": "request bodies are limited to {limit} bytes",
    "too_many_bad_tokens": "too many bad tokens from this address for this match; "
                           "wait and try again",
    "too_many_streams": "too many live streams are open; try again in {retry_after} s",
    "unknown_event_type": "unknown event type {type}; one of {types}",
    "unknown_match": "no match with id {match_id}",
    "server_error": "the server could not answer this request",
    "bad_body": "the request body cannot be read (send JSON)",
    "method_not_allowed": "this address does not take that method",
    "http_error": "the request was refused (HTTP {status})",
    "edge_read_only": "this server is a public edge and takes no writes; send them to "
                      "the officials' server: {officials}",
}
MESSAGES.update(LIMIT_MESSAGES)  # over a parser's cap, a heavy-work pool full (chukker.limits)


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
        "code": {"type": "string", "description": "a key of MESSAGES or an engine code"},
        "params": {"type": "object", "description": "the values filled into the message"},
        "message": {"type": "string", "description": "English text"},
        "text": {"type": "string", "description": "the message in the caller's language "
                 "(?lang=, else Accept-Language), where the operation says so"},
    },
}


def document_errors(doc: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI ``doc`` with every 4xx/5xx of ``/api`` described as :data:`ERROR_SCHEMA`.

    FastAPI documents its own 422 body (``HTTPValidationError``), which the API
    never sends; operations on a match also answer 404 ``unknown_match``.

    >>> doc = {"paths": {"/api/m/{match_id}": {"get": {"responses": {"422": {}}}}}}
    >>> sorted(document_errors(doc)["paths"]["/api/m/{match_id}"]["get"]["responses"])
    ['404', '422']
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
    return doc
