"""Demo content for ``chukker serve``: one match ready to start."""

from __future__ import annotations

from typing import Any

DEMO_HEADER: dict[str, Any] = {
    "format": "chukker-match/1",
    "rules": "uspa-arena-2026",
    "options": {
        "periods": "regulation",
        "split_periods": False,
        "tiebreak": "extra-periods",
        "shootout_players": "all",
        "handicap": True,
        "warning_horn": True,
        "two_point_line": "center",
        "first_defends": {"A": "west", "B": "east"},
    },
    "teams": {
        "A": {"name": "Blue", "captain": 2, "players": [
            {"no": 1, "name": "Ann", "handicap": 2},
            {"no": 2, "name": "Bea", "handicap": 3},
            {"no": 3, "name": "Cat", "handicap": 1}]},
        "B": {"name": "White", "captain": 1, "players": [
            {"no": 1, "name": "Dan", "handicap": 4},
            {"no": 2, "name": "Eve", "handicap": 2},
            {"no": 3, "name": "Fay", "handicap": 2}]},
    },
}
