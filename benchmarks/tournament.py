"""Tournament benchmark: the standings of a season from its match records.

    python benchmarks/tournament.py [--teams 200] [--records 2000] [--seed 1]

Writes a season to a temporary folder: ``--teams`` teams in pools of 20
(round robins) and, to reach ``--records`` match records, a cup stage of
extra matches between random teams; every match has a record (JSON, played
without stoppages, 8 to 16 goals). Then times, in this process:

* ``standings``: ``chukker tournament standings`` without printing: read the
  tournament file, read and replay every record, tables and order of finish;
* ``season export``: ``chukker season export`` of the same season without writing:
  read the file and every record once, replay, standings, one CSV line per match
  (rosters with handicaps), roll of honour, goals and penalties per player;
* ``replay`` (the baseline, in the same run): read and replay every record,
  nothing else.

Prints each time, the standings time as a ratio to the replay time, and the
ratio to the target (standings < 5 s, season export < 5 s).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

from chukker.record import dumps as record_dumps
from chukker.record import load_path, replay
from chukker.tournament import dumps, from_dict, standings
from chukker.tournament import load_path as load_tournament
from chukker.tournament.records import header, scripted_events
from chukker.tournament.season import load_season, season_csv

TARGET_S = 5.0


def season(folder: Path, n_teams: int, n_records: int, seed: int) -> Path:
    rng = random.Random(seed)
    players, teams = [], []
    for i in range(n_teams):
        ids = [f"p{i}-{k}" for k in (1, 2, 3)]
        for pid in ids:
            players.append(
                {
                    "id": pid,
                    "name": pid,
                    "registered": [2026],
                    "handicaps": [{"from": dt.date(2025, 5, 1), "value": rng.randint(0, 3)}],
                }
            )
        teams.append({"id": f"t{i}", "name": f"Team {i}", "players": ids})
    stages, pairs = [], []
    for k in range(0, n_teams, 20):
        pool = [f"t{i}" for i in range(k, min(k + 20, n_teams))]
        stages.append({"id": f"pool-{k // 20}", "kind": "round-robin", "teams": pool})
        pairs += [(f"pool-{k // 20}", a, b) for a, b in combinations(pool, 2)]
    pairs = pairs[:n_records]
    stages.append({"id": "cup", "kind": "single-elimination"})
    while len(pairs) < n_records:
        a, b = rng.sample(range(n_teams), 2)
        pairs.append(("cup", f"t{a}", f"t{b}"))
    day = dt.datetime(2026, 3, 1, 10)
    matches = [
        {
            "id": f"m{i}",
            "stage": s,
            "arena": f"Arena {i % 4 + 1}",
            "start": day + dt.timedelta(hours=i // 4),
            "teams": [a, b],
            "record": f"records/m{i}.json",
        }
        for i, (s, a, b) in enumerate(pairs)
    ]
    doc = {
        "format": "chukker-tournament/1",
        "name": "Season",
        "players": players,
        "teams": teams,
        "stages": stages,
        "matches": matches,
        "match_options": {"tiebreak": "shootout", "handicap": False},
    }
    t = from_dict(doc, folder)
    (folder / "records").mkdir()
    for m in t.matches.values():
        rec = header(t, m, (m.teams[0].team, m.teams[1].team))
        ga = rng.randint(3, 9)
        gb = rng.choice([g for g in range(3, 10) if g != ga])
        rec["events"] = scripted_events((ga, gb))
        (folder / "records" / f"{m.id}.json").write_text(record_dumps(rec))
    path = folder / "season.toml"
    path.write_text(dumps(t))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teams", type=int, default=200)
    ap.add_argument("--records", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = season(Path(tmp), args.teams, args.records, args.seed)
        files = sorted((Path(tmp) / "records").glob("*.json"))
        events = 0
        t0 = time.perf_counter()
        for f in files:
            rec = load_path(f)
            events += len(rec["events"])
            replay(rec)
        t_replay = time.perf_counter() - t0
        t0 = time.perf_counter()
        s = standings(load_tournament(path))
        t_standings = time.perf_counter() - t0
        finals = sum(1 for m in s.matches if m.status == "final")
        assert finals == len(files), (finals, len(files))
        t0 = time.perf_counter()
        csv_text = season_csv(load_season([path]).rows)
        t_season = time.perf_counter() - t0
        assert csv_text.count("\n") == len(files) + 1
    print(f"season: {args.teams} teams, {len(files)} match records, {events} events")
    print(f"replay (baseline): {t_replay:.2f} s")
    print(
        f"standings from the records: {t_standings:.2f} s "
        f"= {t_standings / t_replay:.2f} x replay; "
        f"{t_standings / TARGET_S:.2f} x the {TARGET_S:.0f} s target"
    )
    print(
        f"season export (CSV, every match): {t_season:.2f} s "
        f"= {t_season / t_replay:.2f} x replay; "
        f"{t_season / TARGET_S:.2f} x the {TARGET_S:.0f} s target"
    )
    sys.exit(0 if t_standings < TARGET_S and t_season < TARGET_S else 1)


if __name__ == "__main__":
    main()
