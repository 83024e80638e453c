"""Legal random matches, for property tests, benchmarks and demo content.

Pure: the caller passes the random generator; every event produced is
accepted by the engine (the generator drives a live fold and asks it).

>>> import random
>>> events = simulate(default_setup(), random.Random(7), events=120)
>>> from chukker.engine import replay
>>> replay(default_setup(), events)["status"] in {"final", "interval", "shootout", "stopped"}
True
"""

from __future__ import annotations

import random
from typing import Any

from chukker.engine.fold import Fold
from chukker.engine.setup import Setup
from chukker.engine.types import Status


def default_setup(**options: Any) -> Setup:
    """A set-up with two handicapped teams and the given committee options."""

    def team(name: str, hcps: tuple[int, int, int]) -> dict[str, Any]:
        return {
            "name": name,
            "captain": 2,
            "players": [
                {"no": n, "name": f"{name} {n}", "handicap": h}
                for n, h in zip((1, 2, 3), hcps, strict=True)
            ],
        }

    return Setup.from_dict(
        {"options": options, "teams": {"A": team("Blue", (2, 3, 1)), "B": team("White", (3, 3, 1))}}
    )


def simulate(setup: Setup, rng: random.Random, events: int = 300) -> list[dict[str, Any]]:
    """About ``events`` legal operator events (fewer if the match ends first)."""
    fold = Fold(setup)
    out: list[dict[str, Any]] = []
    t = 0
    teams = list(setup.team_ids)

    def emit(ev: dict[str, Any]) -> None:
        fold.apply(ev)
        out.append(ev)

    while len(out) < events:
        c = fold.core
        if c.final:
            break
        st = c.status
        if st is Status.INTERVAL or st is Status.PRE_MATCH:
            if st is Status.INTERVAL:
                t = max(t, c.interval_end) + rng.randrange(0, 20_000)
                c.advance(t)
                if c.status is Status.SHOOTOUT:
                    continue
            else:
                t += rng.randrange(0, 5_000)
            emit({"at": t / 1000, "type": "free_hit" if c.pending else "bowl_in"})
            continue
        if st is Status.STOPPED:
            t += rng.randrange(2_000, 30_000)
            if rng.random() < 0.03:
                # the timekeeper corrects the stopped clock (a late whistle)
                rem = min(max(c.remaining + rng.randrange(-3_000, 3_000), 1_000), c.length)
                emit({"at": t / 1000, "type": "clock", "remaining": rem / 1000,
                      "reason": "late whistle"})
                t += rng.randrange(0, 3_000)
            emit({"at": t / 1000, "type": "free_hit" if c.pending else "bowl_in"})
            continue
        if st is Status.SHOOTOUT:
            t = max(t, c.so_next_at) + rng.randrange(10_000, 60_000)
            if c.so_order is None:
                order = {}
                for team in teams:
                    ps = c.playing(team)
                    rng.shuffle(ps)
                    order[team] = ps[:1] if setup.options.shootout_players == "one" else ps
                emit(
                    {
                        "at": t / 1000,
                        "type": "shootout_order",
                        "first": rng.choice(teams),
                        "order": order,
                    }
                )
            else:
                team, player = c.so_seq[c.so_pos]
                result = rng.choice(["goal", "miss", "miss", "forfeit"])
                emit(
                    {
                        "at": t / 1000,
                        "type": "shot",
                        "team": team,
                        "player": player,
                        "result": result,
                        "reached_end_wall": result == "goal" or rng.random() < 0.3,
                    }
                )
            continue
        # the clock runs
        end = c.run_since + c.remaining
        t += rng.randrange(500, 24_000)
        if t >= end:
            t = end + rng.randrange(0, 3_000)
            c.advance(t)
            if not c.final and rng.random() < 0.5:
                emit({"at": t / 1000, "type": "whistle", "reason": "end of period"})
            continue
        roll = rng.random()
        team = rng.choice(teams)
        eligible: list[int | None] = [*c.playing(team)] or [None]
        if roll < 0.12:
            emit(
                {
                    "at": t / 1000,
                    "type": "goal",
                    "team": team,
                    "player": rng.choice(eligible),
                    **({"two_point": True} if rng.random() < 0.1 else {}),
                }
            )
            if fold.core.status is Status.IN_PLAY and rng.random() < 0.9:
                t += rng.randrange(3_000, 15_000)
                if t < end:
                    emit({"at": t / 1000, "type": "bowl_in"})
        elif roll < 0.62:
            emit({"at": t / 1000, "type": "whistle"})
        elif roll < 0.92:
            pen = rng.choice(["1", "2", "3", "3", "4", "5a", "5b", "5b"])
            ev: dict[str, Any] = {
                "at": t / 1000,
                "type": "foul",
                "team": team,
                "player": rng.choice(eligible),
                "penalty": pen,
                "clause": rng.choice(["12", "13b", "13f", "13k", "15"]),
            }
            if pen == "5b":
                ev["spot"] = [round(rng.uniform(0, 100), 1), round(rng.uniform(0, 50), 1)]
            emit(ev)
        elif roll < 0.97:
            emit({"at": t / 1000, "type": "timeout", "reason": rng.choice(["equipment", "injury"])})
        else:
            emit({"at": t / 1000, "type": "whistle", "reason": "ball out"})
    return out
