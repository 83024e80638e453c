"""Tournaments: the register, stages, the day's schedule and the order of finish.

Pure (no web framework): reads the tournament file (``chukker-tournament/1``,
see ``docs/tournament.md``), replays its match records with the engine and
derives tables, orders of finish and brackets (of any size, with byes) from them;
a club's season across its tournaments (``season``); a result in words (``words``).
"""

from __future__ import annotations

from chukker.tournament.check import check
from chukker.tournament.model import (
    Tournament,
    TournamentError,
    dumps,
    from_dict,
    load_path,
    loads,
)
from chukker.tournament.problems import Problem
from chukker.tournament.records import header
from chukker.tournament.season import load_season, read_season_csv, season_csv
from chukker.tournament.standings import Standings, replay_all, standings
from chukker.tournament.words import result_words

__all__ = [
    "Problem",
    "Standings",
    "Tournament",
    "TournamentError",
    "check",
    "dumps",
    "from_dict",
    "header",
    "load_path",
    "load_season",
    "loads",
    "read_season_csv",
    "replay_all",
    "result_words",
    "season_csv",
    "standings",
]
