"""The doors in the OpenAPI document: each door of :data:`chukker.web.doors.DOORS` adds
its declared answers (status -> refusal code), its body's schema (the match header, an
operator event, a tournament file) and its media types to FastAPI's document."""

from __future__ import annotations

import re
from typing import Any

from chukker.web.doors import DOORS, Cost, Door


def _openapi_path(path: str) -> str:
    return re.sub(r"\{(\w+):\w+\}", r"{\1}", path)


#: the match header's keys the API takes (``meta``, the record file's free notes, is not
#: one of them: ``web.api.routes.HEADER_KEYS``)
API_HEADER_KEYS = ("format", "rules", "edition", "options", "teams", "match_info")


def header_schema() -> dict[str, Any]:
    """The match record's header (the record without its events), from its one definition
    (:func:`chukker.record.schema.schema`): the body of ``POST /api/matches``."""
    from chukker.record.schema import schema

    s = dict(schema())
    for k in ("$schema", "$id", "$defs"):  # $defs: only the events' ``at`` refers to it
        s.pop(k, None)
    s["title"] = "MatchHeader"
    s["properties"] = {k: v for k, v in s["properties"].items() if k in API_HEADER_KEYS}
    return s


def event_schema() -> dict[str, Any]:
    """An operator event as the API takes it (``event`` of ``POST .../events``): one of the
    record's event types, from its one definition, without ``at`` (the command's own)."""
    from chukker.record.schema import schema

    kinds = []
    for k in schema()["properties"]["events"]["items"]["oneOf"]:
        k = dict(k)
        k["properties"] = {p: v for p, v in k["properties"].items() if p != "at"}
        k["required"] = [p for p in k["required"] if p != "at"]
        kinds.append(k)
    return {"title": "Event", "oneOf": kinds}


#: the tournament file as text: OpenAPI formats (JSON Schema cannot say which texts are
#: tournaments; a client, or a fuzzer, gives a generator for them)
TOURNAMENT_TOML, TOURNAMENT_JSON = "chukker-tournament-toml", "chukker-tournament-json"


def tournament_body_schema() -> dict[str, Any]:
    """The body of ``POST /tournaments/api``: ``{"text": <the file>}``, its ``format``
    (``toml`` or ``json``) named or told by the text (JSON starts with ``{``).

    What makes a text a tournament (``chukker-tournament/1``: the register, teams, stages
    and matches, each player eligible on the match's day) is no JSON Schema's to say:
    the text's ``format`` names it. ``{"tournament": {...}}`` (the same file as a JSON
    object) is taken too, and left out here for the same reason: its text form says it."""
    text = "the tournament file (docs/tournament.md)"
    return {
        "title": "TournamentUpload",
        "description": 'A chukker-tournament/1 file as text; {"tournament": <the file as a '
        'JSON object>} is taken too (see docs/tournament.md)',
        "anyOf": [
            {"type": "object", "required": ["text"], "additionalProperties": False,
             "properties": {"text": {"type": "string", "minLength": 1, "format": fmt,
                                     "description": f"{text}, {name}"},
                            "format": {"const": name}}}
            for fmt, name in ((TOURNAMENT_TOML, "toml"), (TOURNAMENT_JSON, "json"))
        ],
    }


def document(doc: dict[str, Any], doors: tuple[Door, ...] = DOORS) -> dict[str, Any]:
    """The OpenAPI ``doc`` with every door's answers (status -> code), the success media
    types, and the real body schemas (the record header, the tournament file).

    >>> doc = {"paths": {"/tournaments/{tid}/bracket.svg": {"get": {"responses": {}}}}}
    >>> r = document(doc)["paths"]["/tournaments/{tid}/bracket.svg"]["get"]["responses"]
    >>> sorted(r), sorted(r["200"]["content"])
    (['200', '404', '429'], ['image/svg+xml'])
    """
    from chukker.web.errors import message

    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas["MatchHeader"] = header_schema()
    schemas["TournamentUpload"] = tournament_body_schema()
    command = schemas.get("EventCommand", {}).get("properties", {})
    if "event" in command:
        command["event"] = {**event_schema(), "description": command["event"].get(
            "description", "")}
    error = {"$ref": "#/components/schemas/ApiError"} if "ApiError" in schemas else {
        "type": "object"}
    bodies = {("post", "/api/matches"): "MatchHeader",
              ("post", "/tournaments/api"): "TournamentUpload"}
    for d in doors:
        ops = doc.get("paths", {}).get(_openapi_path(d.path))
        if ops is None:
            continue
        for method in d.methods.lower().split(","):
            op = ops.get(method)
            if op is None:
                continue
            responses = op.setdefault("responses", {})
            if d.media and d.cost is not Cost.STREAM:  # a stream's events keep their schema
                ok = responses.setdefault("200" if method == "get" else "201", {
                    "description": "Successful Response"})
                content = ok.setdefault("content", {})
                content.setdefault(d.media, {"schema": {"type": "string"}})
            answers = dict(d.answers)
            if d.rate((1.0, 1.0)) is not None:
                answers.setdefault(429, "rate_limited")
            for status, code in sorted(answers.items()):
                if status < 300:  # another success: the success answer's body, its own words
                    ok = next((responses[k] for k in ("201", "200") if k in responses), {})
                    responses.setdefault(str(status), {**ok, "description": code})
                    continue
                kind = ({"application/json": {"schema": error}} if d.json or d.json_refusals else
                        {"text/html": {"schema": {"type": "string"}}})
                resp = responses.setdefault(str(status), {"description": message(code, {})})
                resp.setdefault("content", kind)
                resp["description"] = resp.get("description") or message(code, {})
            name = bodies.get((method, d.path))
            if name is not None:
                op["requestBody"] = {"required": True, "content": {"application/json": {
                    "schema": {"$ref": f"#/components/schemas/{name}"}}}}
    return doc
