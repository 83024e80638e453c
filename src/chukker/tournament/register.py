"""The register of players: handicap history with effective dates, CSV import, team totals.

Associations change arena handicaps on fixed dates: a change can apply at
once, on the next 1 December or on the next 1 May (:func:`effective_date`).
The handicap in force on a day is the latest change taking effect on or
before it.

>>> effective_date(dt.date(2026, 7, 15), "december")
datetime.date(2026, 12, 1)
>>> effective_date(dt.date(2026, 7, 15), "may")
datetime.date(2027, 5, 1)
>>> reg = read_csv("id,name,registered,handicap,from\\nann,Ann Lee,2026,2,2025-05-01\\n"
...                "ann,Ann Lee,2026,3,2026-12-01\\n")
>>> reg["ann"].handicap_on(dt.date(2026, 11, 30)), reg["ann"].handicap_on(dt.date(2026, 12, 1))
(2, 3)
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterable, Mapping
from typing import Literal

from chukker import csvsafe
from chukker.tournament.model import (
    HANDICAP_RANGE,
    HandicapChange,
    Player,
    Team,
    TournamentError,
    to_date,
)

When = Literal["now", "december", "may"]


def effective_date(announced: dt.date, when: When = "now") -> dt.date:
    """The date a handicap change announced on ``announced`` takes effect."""
    if when == "now":
        return announced
    month = 12 if when == "december" else 5
    d = dt.date(announced.year, month, 1)
    return d if d >= announced else dt.date(announced.year + 1, month, 1)


def with_change(p: Player, start: dt.date, value: int) -> Player:
    """``p`` with a handicap ``value`` from ``start`` (replacing a change on that same date)."""
    lo, hi = HANDICAP_RANGE
    if not lo <= value <= hi:
        raise ValueError(f"arena handicap {value} is outside {lo}..{hi}")
    changes = [h for h in p.handicaps if h.start != start] + [HandicapChange(start, value)]
    changes.sort(key=lambda h: h.start)
    return Player(p.id, p.name, p.registered, tuple(changes))


_COLUMNS = ("id", "name", "registered", "handicap", "from")


def read_csv(text: str) -> dict[str, Player]:
    """Players from CSV rows ``id, name, registered (year), handicap, from (date)``.

    A header row naming the columns is expected; ``effective_from``/``year`` are
    accepted as synonyms. Several rows of one id add years and handicap changes.
    Raises :class:`TournamentError` naming the line of a bad row.
    """
    rows = list(csvsafe.reader(io.StringIO(text)))
    if not rows:
        return {}
    head = [h.strip().lower().replace(" ", "_") for h in rows[0]]
    synonyms = {"effective_from": "from", "year": "registered", "year_registered": "registered"}
    head = [synonyms.get(h, h) for h in head]
    if not set(_COLUMNS) <= set(head):
        missing = ", ".join(c for c in _COLUMNS if c not in head)
        raise TournamentError(f"the CSV header lacks {missing}", 1, 1)
    col = {h: i for i, h in enumerate(head)}
    players: dict[str, Player] = {}
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        try:
            pid, name = row[col["id"]].strip(), row[col["name"]].strip()
            year = int(row[col["registered"]]) if row[col["registered"]].strip() else None
            value = int(row[col["handicap"]])
            start = to_date(row[col["from"]].strip())
        except (IndexError, ValueError):
            raise TournamentError(f"row {n}: expected {', '.join(_COLUMNS)}", n, 1) from None
        if not pid or start is None:
            raise TournamentError(f"row {n}: an id and a date (YYYY-MM-DD) are needed", n, 1)
        p = players.get(pid, Player(pid, name or pid))
        years = p.registered if year is None or year in p.registered else (*p.registered, year)
        p = Player(p.id, p.name, tuple(sorted(years)), p.handicaps)
        try:
            players[pid] = with_change(p, start, value)
        except ValueError as e:
            raise TournamentError(f"row {n}: {e}", n, 1) from None
    return players


def write_csv(players: Iterable[Player]) -> str:
    """The register as CSV (one row per handicap change), readable by :func:`read_csv`."""
    out = io.StringIO()
    w = csvsafe.writer(out, lineterminator="\n")
    w.writerow(_COLUMNS)
    for p in players:
        years: list[int | str] = list(p.registered) or [""]
        for i, h in enumerate(p.handicaps):
            w.writerow([p.id, p.name, years[min(i, len(years) - 1)], h.value, h.start.isoformat()])
    return out.getvalue()


def team_handicap(team: Team, players: Mapping[str, Player], day: dt.date) -> int | None:
    """Rule 17: the sum of the team's three players' handicaps in force on ``day``
    (``None`` if one of them is unknown or has no handicap in force)."""
    total = 0
    for pid in team.players:
        p = players.get(pid)
        h = p.handicap_on(day) if p is not None else None
        if h is None:
            return None
        total += h
    return total


def what_changed(before: Mapping[str, Player], read: Mapping[str, Player]) -> str:
    """What an import of the register did (issue 42: ``register`` says it), in one line.

    >>> old = read_csv("id,name,registered,handicap,from\\nann,Ann,2026,2,2025-05-01\\n")
    >>> new = read_csv("id,name,registered,handicap,from\\nann,Ann,2026,2,2025-05-01\\n"
    ...                "ann,Ann,2026,3,2026-12-01\\nbob,Bob,2026,1,2025-05-01\\n")
    >>> what_changed(old, new)
    '2 players read: 1 added, 1 updated (1 handicap change), 0 unchanged'
    """
    added = [p for p in read if p not in before]
    updated = [p for p in read if p in before and before[p] != read[p]]
    changes = sum(len(set(read[p].handicaps) - set(before[p].handicaps)) for p in updated)
    same = len(read) - len(added) - len(updated)
    return (f"{len(read)} players read: {len(added)} added, {len(updated)} updated "
            f"({changes} handicap change{'s' if changes != 1 else ''}), {same} unchanged")
