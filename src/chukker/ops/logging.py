"""Structured logs: one JSON object per line, with match id, command id and role; never a token.

:func:`configure` sends the ``chukker`` loggers (and uvicorn's) to standard
error as JSON lines (or text). Every record goes through :func:`redact`,
which blanks bearer tokens, ``token=`` and ``ticket=`` values and the secrets' JSON fields,
so a token that slips into a message or a URL never reaches the log.

Request handlers add what they know to the request's access line with
:func:`annotate` (``role``, ``command_id``); the access middleware
(:mod:`chukker.web.ops.observe`) writes that line when the answer is sent.

>>> redact('POST with Authorization: Bearer abc.DEF-123 and ?token=xyz&x=1')
'POST with Authorization: Bearer [redacted] and ?token=[redacted]&x=1'
>>> redact('{"timekeeper_token": "s3cret", "seq": 2}')
'{"timekeeper_token": "[redacted]", "seq": 2}'
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sys
from typing import Any

#: fields copied from a record's ``extra`` into the JSON line, in this order
FIELDS = ("match_id", "command_id", "role", "seq", "client", "method", "path", "status",
          "ms", "code", "kind")

_PATTERNS = (
    (re.compile(r"(?i)(bearer\s+)[^\s\"',;]+"), r"\1[redacted]"),
    (re.compile(r"(?i)((?:^|[?&#\s])[a-z_]*(?:token|ticket|display)=)[^&\s#\"']+"),
     r"\1[redacted]"),
    (re.compile(r"(?i)(\"[a-z_]*(?:token|ticket|secret|password)\"\s*:\s*\")[^\"]*(\")"),
     r"\1[redacted]\2"),
    (re.compile(r"(?i)(postgres(?:ql)?://[^:/@\s]+:)[^@\s]+(@)"), r"\1[redacted]\2"),
)


#: a word without which none of the patterns can match (one scan for most log lines)
_MAYBE = re.compile(r"(?i)bearer|token|ticket|display|secret|password|postgres")


def redact(text: str) -> str:
    """``text`` with every secret-looking value replaced by ``[redacted]``.

    >>> redact("GET /m/1/stream?token=abc&kind=big 200"), redact("POST /api/matches 201")
    ('GET /m/1/stream?token=[redacted]&kind=big 200', 'POST /api/matches 201')
    """
    if _MAYBE.search(text) is None:
        return text
    for pat, rep in _PATTERNS:
        text = pat.sub(rep, text)
    return text


def annotate(request: Any, **fields: Any) -> None:
    """Add ``fields`` (role, command_id, match_id, code) to the request's access log line."""
    try:
        state = request.scope.setdefault("state", {})
        state.setdefault("chukker_log", {}).update(
            {k: (v.value if hasattr(v, "value") else v) for k, v in fields.items()})
    except AttributeError:  # not a request
        pass


def log_fields(scope: Any) -> dict[str, Any]:
    state = scope.get("state") or {}
    found = state.get("chukker_log") if isinstance(state, dict) else None
    return dict(found) if isinstance(found, dict) else {}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and the known fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC)
            .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        for f in FIELDS:
            v = record.__dict__.get(f)
            if v is not None:
                out[f] = redact(v) if isinstance(v, str) else v
        if record.exc_info:
            out["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(out, ensure_ascii=False, separators=(",", ":"), default=str)


class TextFormatter(logging.Formatter):
    """``time level logger: message key=value ...``, redacted."""

    def format(self, record: logging.LogRecord) -> str:
        extra = " ".join(f"{f}={record.__dict__[f]}" for f in FIELDS
                         if record.__dict__.get(f) is not None)
        base = f"{self.formatTime(record)} {record.levelname.lower()} {record.name}: " \
            f"{record.getMessage()}"
        text = base + (" " + extra if extra else "")
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return redact(text)


_HANDLER_NAME = "chukker-structured"


def configure(fmt: str = "json", level: str = "info", stream: Any = None) -> logging.Handler:
    """Send the ``chukker`` and ``uvicorn`` loggers to ``stream`` (stderr) in ``fmt``.

    Calling it again replaces the handler it installed before.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    lvl = getattr(logging, level.upper(), logging.INFO)
    for name in ("chukker", "uvicorn.error"):
        lg = logging.getLogger(name)
        for h in list(lg.handlers):
            if h.get_name() == _HANDLER_NAME:
                lg.removeHandler(h)
        lg.addHandler(handler)
        lg.setLevel(lvl)
        lg.propagate = False
    return handler
