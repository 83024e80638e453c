"""The JSON Schema of the match record (``chukker schema``), from the record's definitions."""

from __future__ import annotations

from typing import Any

from chukker.record.definitions import json_schema


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``chukker-match/1``.

    >>> s = schema()
    >>> s["properties"]["format"]["const"]
    'chukker-match/1'
    """
    return json_schema()
