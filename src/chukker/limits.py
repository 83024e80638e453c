"""The caps every parser of chukker keeps: sizes, rows, nesting depth, and no compression.

One place for the numbers, so that the web app, the command line and the next
reader (GPS device files, a new importer) refuse the same input the same way:
with a :class:`LimitError` that has a stable ``code``, its ``params`` and an
English message, never a ``RecursionError`` or a gigabyte of inflated CSV.
Stdlib only; nothing here imports a web framework.

>>> depth({"a": [1, [2, {"b": 3}]]})
4
>>> verify_depth([[[]]], 2, "body")
Traceback (most recent call last):
...
chukker.limits.LimitError: body: nested deeper than 2 levels
>>> compression_of(b"BZh91AY&SY...")
'bzip2'
>>> json_text_depth(b'{"a": "[[[[", "b": [1, {"c": []}]}')
4
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from chukker.errors import ChukkerError, words

#: bytes of a JSON body of the API (match records, events, tournaments as JSON)
API_BODY_BYTES = 64 * 1024
#: bytes of one ``POST /plays/review`` request (a GPS session with its fixes)
REVIEW_BODY_BYTES = 64 * 2**20
#: bytes of a tournament file uploaded through the pages (TOML or JSON text)
TOURNAMENT_BODY_BYTES = 1 * 2**20
#: nesting depth of any JSON or TOML document chukker reads (records nest 5 deep)
MAX_DEPTH = 32
#: rows of a tracking file or a file of GPS fixes (a 60-minute session of 12 units
#: at 25 Hz is 1.08 M rows)
MAX_ROWS = 2_000_000
#: bytes of a tracking file or a file of fixes as stored (nothing is inflated)
MAX_DATA_BYTES = REVIEW_BODY_BYTES
#: bytes a Parquet file may declare once decoded (its own compression is allowed, capped)
MAX_PARQUET_DECODED_BYTES = 512 * 2**20
#: bytes of a rulebook document to import (HTML, PDF text, plain text)
MAX_RULEBOOK_BYTES = 32 * 2**20
#: nesting depth of a rulebook HTML page (real ones stay under 40)
MAX_HTML_DEPTH = 256
#: teams and matches of one tournament file
MAX_TOURNAMENT_TEAMS = 512
MAX_TOURNAMENT_MATCHES = 4096

#: magic bytes of the compressed formats readers would otherwise inflate by themselves
MAGIC: dict[str, bytes] = {
    "gzip": b"\x1f\x8b",
    "bzip2": b"BZh",
    "xz": b"\xfd7zXZ\x00",
    "zstd": b"\x28\xb5\x2f\xfd",
    "lz4": b"\x04\x22\x4d\x18",
    "zip": b"PK\x03\x04",
    "7z": b"7z\xbc\xaf\x27\x1c",
}


#: in the one registry of words (:data:`chukker.errors.words.LIMITS`)
MESSAGES: dict[str, str] = words.LIMITS


@dataclass(eq=False)
class LimitError(ChukkerError):
    """Input over one of the caps; ``code`` is a key of :data:`MESSAGES`."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __reduce__(self) -> tuple[Any, ...]:  # crosses process boundaries (worker pools)
        return (LimitError, (self.code, self.params))

    @property
    def message(self) -> str:
        return MESSAGES[self.code].format(**self.params)

    def __str__(self) -> str:
        return self.message


def depth(obj: Any) -> int:
    """Nesting depth of lists and mappings in ``obj`` (iterative: any depth is fine).

    >>> depth(1), depth([]), depth({"a": {}})
    (0, 1, 2)
    """
    best = 0
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        o, d = stack.pop()
        if isinstance(o, dict):
            d += 1
            stack.extend((v, d) for v in o.values())
        elif isinstance(o, list | tuple):
            d += 1
            stack.extend((v, d) for v in o)
        best = max(best, d)
    return best


def verify_depth(obj: Any, limit: int = MAX_DEPTH, where: str = "document") -> None:
    """Raise :class:`LimitError` ``too_deep`` when ``obj`` nests deeper than ``limit``."""
    if depth(obj) > limit:
        raise LimitError("too_deep", {"where": where, "limit": limit})


_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_DROP = bytes(c for c in range(256) if c not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_text_depth(data: bytes) -> int:
    """Nesting depth of JSON text without parsing it (brackets inside strings don't count):
    a guard that runs before ``json.loads`` can recurse."""
    brackets = _STRINGS.sub(b"", data).translate(None, _DROP)
    if not brackets:
        return 0
    return max(0, max(itertools.accumulate(_STEP[b] for b in brackets)))


def compression_of(head: bytes) -> str | None:
    """The compressed format whose magic bytes start ``head``, else ``None``."""
    for kind, magic in MAGIC.items():
        if head.startswith(magic):
            return kind
    return None


def verify_not_compressed(head: bytes, where: str) -> None:
    """Refuse a compressed file: readers would inflate it without a cap."""
    kind = compression_of(head)
    if kind is not None:
        raise LimitError("compressed", {"where": where, "kind": kind})


def verify_size(n: int, limit: int, where: str) -> None:
    if n > limit:
        raise LimitError("too_big", {"where": where, "limit": limit})


def verify_rows(n: int, limit: int = MAX_ROWS, where: str = "file") -> None:
    if n > limit:
        raise LimitError("too_many_rows", {"where": where, "limit": limit})


def loads_toml(text: str, where: str = "document", limit: int = MAX_DEPTH) -> dict[str, Any]:
    """``tomllib.loads`` that refuses nesting deeper than ``limit`` (``too_deep``), never
    raising ``RecursionError``; ``tomllib.TOMLDecodeError`` for malformed text.

    >>> loads_toml("a = " + "[" * 5000 + "]" * 5000, "s.toml")
    Traceback (most recent call last):
    ...
    chukker.limits.LimitError: s.toml: nested deeper than 32 levels
    """
    import tomllib

    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise LimitError("too_deep", {"where": where, "limit": limit}) from None
    verify_depth(doc, limit, where)
    return doc


_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>")
#: elements that never nest (void) or whose end tag a browser implies (not counted)
_VOID = "area base br col embed hr img input link meta source track wbr"
_IMPLIED = "p li dt dd tr td th option optgroup rb rt rtc rp thead tbody tfoot colgroup caption"
_FLAT = frozenset(f"{_VOID} {_IMPLIED}".split(" "))


def html_depth(html: str) -> int:
    """Nesting depth of an HTML page's elements, without building a tree (elements with
    implied end tags and void elements are not counted).

    >>> html_depth("<html><body><div><p>a<p>b</div></body></html>")
    3
    """
    best = d = 0
    for m in _TAG.finditer(html):
        name = m.group(2).lower()
        if name in _FLAT or m.group(3).endswith("/"):
            continue
        if m.group(1):
            d = max(0, d - 1)
        else:
            d += 1
            best = max(best, d)
    return best


def verify_html(html: str, where: str = "page", limit: int = MAX_HTML_DEPTH) -> None:
    """Refuse an HTML page larger than :data:`MAX_RULEBOOK_BYTES` or nested deeper than
    ``limit`` before a parser (which recurses) sees it."""
    verify_size(len(html), MAX_RULEBOOK_BYTES, where)
    if html_depth(html) > limit:
        raise LimitError("too_deep", {"where": where, "limit": limit})
