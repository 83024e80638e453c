"""The flat feed record as JSON, XML and CSV, and back (for clients and round-trip tests).

vMix Data Sources, CasparCG templates and online graphics services poll one
of these URLs. Each holds one record (:data:`chukker.feeds.payloads.FLAT_FIELDS`,
in that order); a missing value (no clock before the match, no goal yet) is
``null`` in JSON and empty in XML and CSV.

>>> rec = {"match_id": "m1", "team_a_name": "Blue & <Co>", "team_a_score": 2,
...        "team_b_name": "White", "team_b_score": 1, "period": 2, "clock": "5:50",
...        "clock_ms": 350000, "running": True, "status": "in_play",
...        "status_text": "Period 2 · In play", "interval_ms": None, "last_goal_team": "A",
...        "last_goal_player": 3, "last_goal_at": 512.3, "penalty_pending": None,
...        "penalty_to": None, "winner": None, "seq": 9, "at": 1764620000000}
>>> parse_xml(to_xml(rec)) == rec and parse_csv(to_csv(rec)) == rec
True
>>> to_csv(rec).decode().splitlines()[0][:40]
'match_id,team_a_name,team_a_score,team_b'
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from typing import Any
from xml.etree import ElementTree as ET

from chukker import csvsafe
from chukker.feeds.payloads import FLAT_FIELDS

#: the type of each field (for reading XML and CSV back)
FIELD_TYPES: dict[str, type] = {
    "match_id": str, "team_a_name": str, "team_a_score": int, "team_b_name": str,
    "team_b_score": int, "period": int, "clock": str, "clock_ms": int, "running": bool,
    "status": str, "status_text": str, "interval_ms": int, "last_goal_team": str,
    "last_goal_player": int, "last_goal_at": float, "penalty_pending": str, "penalty_to": str,
    "winner": str, "seq": int, "at": int,
}
assert tuple(FIELD_TYPES) == FLAT_FIELDS

#: characters XML 1.0 cannot carry (they become U+FFFD)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _value(name: str, s: str) -> Any:
    if s == "":
        return None
    kind = FIELD_TYPES[name]
    if kind is bool:
        return s == "true"
    if kind is int:
        return int(s)
    if kind is float:
        return float(s)
    return s


def to_json(rec: Mapping[str, Any]) -> bytes:
    return json.dumps({k: rec.get(k) for k in FLAT_FIELDS}, ensure_ascii=False,
                      separators=(",", ":")).encode()


def to_xml(rec: Mapping[str, Any]) -> bytes:
    """``<feed><match_id>..</match_id>...</feed>``: one element per field, in order."""
    root = ET.Element("feed")
    for k in FLAT_FIELDS:
        ET.SubElement(root, k).text = _NOT_XML.sub("\ufffd", _text(rec.get(k)))
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + body


def to_csv(rec: Mapping[str, Any]) -> bytes:
    """A header row and one row (RFC 4180: CRLF, quoted where needed)."""
    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\r\n")
    w.writerow(FLAT_FIELDS)
    w.writerow([_text(rec.get(k)) for k in FLAT_FIELDS])
    return buf.getvalue().encode()


def parse_xml(data: bytes | str) -> dict[str, Any]:
    root = ET.fromstring(data)
    if root.tag != "feed":
        raise ValueError(f"feed.xml: the root element is <{root.tag}>, not <feed>")
    out: dict[str, Any] = {}
    for child in root:
        if child.tag in FIELD_TYPES:
            out[child.tag] = _value(child.tag, child.text or "")
    return out


def parse_csv(data: bytes | str) -> dict[str, Any]:
    text = data.decode() if isinstance(data, bytes) else data
    rows = list(csvsafe.reader(io.StringIO(text, newline="")))
    if len(rows) != 2:
        raise ValueError(f"feed.csv: {len(rows)} rows, expected a header and one record")
    head, row = rows
    return {k: _value(k, v) for k, v in zip(head, row, strict=True) if k in FIELD_TYPES}
