"""Demo content for ``chukker serve``: a match ready to start and a finished one."""

from __future__ import annotations

import random
import secrets
from typing import Any

from chukker.engine import Match, Setup
from chukker.store import EventStore, StoredEvent
from chukker.web.live import hash_token, new_match_id

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


#: the finished demo match's details for the score sheet
DEMO_INFO = {"event": "Arena Challenge Cup", "venue": "Chukker Arena Club", "date": "2026-11-28",
             "arena": "Arena 1", "umpire_1": "R. Alvarez", "umpire_2": "J. Whitfield",
             "referee": "M. Costa", "timekeeper": "L. Brennan", "scorer": "P. Novak"}


def demo_events(setup: Setup, rng: random.Random) -> list[dict[str, Any]]:
    """A whole match as a match day sees it: plays of 15 to 70 s of running time, each
    ending in a goal, a foul and its free hit, or a whistle and a bowl-in; the engine
    checks every event (it decides periods, intervals and the end)."""
    m = Match(setup)
    events: list[dict[str, Any]] = []
    teams = list(setup.team_ids)
    t_ms = 0

    def add(ev: dict[str, Any]) -> None:
        ev = {"at": t_ms / 1000, **ev}
        m.apply(ev)
        events.append(ev)

    add({"type": "bowl_in"})
    for _ in range(400):
        rep = m.report(t_ms)
        status = rep["status"]
        if status == "final":
            break
        if status == "interval":
            t_ms = round(rep["interval"]["end"] * 1000) + rng.randrange(15_000, 60_000)
            add({"type": (rep.get("restart") or {}).get("kind", "bowl_in")})
        elif status == "stopped":
            t_ms += rng.randrange(8_000, 40_000)
            add({"type": (rep.get("restart") or {}).get("kind", "bowl_in")})
        elif status == "in_play":
            left = int(rep["clock"]["remaining_ms"])
            play = rng.randrange(15_000, 70_000)
            if play >= left:  # the period runs out: its horn, then the interval
                t_ms += left + 1000
                continue
            t_ms += play
            team = rng.choice(teams)
            roll = rng.random()
            if roll < 0.42:
                add({"type": "goal", "team": team, "player": rng.choice((1, 2, 2, 3))})
            elif roll < 0.62:
                pen = rng.choice(("2", "3", "3", "4", "5a", "5b", "1"))
                foul: dict[str, Any] = {"type": "foul", "team": team, "penalty": pen,
                                        "player": rng.choice((1, 2, 3)),
                                        "clause": rng.choice(("13b", "13f", "13k", "12"))}
                if rng.random() < 0.15:
                    foul["card"] = "yellow"
                add(foul)
            else:
                add({"type": "whistle"})
        else:  # a shootout would need its order; the demo's rosters rarely tie
            break
    return events


def seed_finished_match(store: EventStore, now_ms: int, seed: int = 2026) -> str:
    """Store a whole, finished demo match (scripted plays checked by the engine), as if
    it had been played just before ``now_ms``; returns its id.

    Its secrets are thrown away: it is there to be looked at (spectator view,
    score sheet, record), not to be scored.
    """
    header = {**DEMO_HEADER, "teams": {
        "A": {**DEMO_HEADER["teams"]["A"], "name": "Los Potros"},
        "B": {**DEMO_HEADER["teams"]["B"], "name": "Saint Giles"},
    }, "match_info": DEMO_INFO}
    setup = Setup.from_dict(header)
    events = demo_events(setup, random.Random(seed))
    last_ms = round(events[-1]["at"] * 1000) if events else 0
    start_ms = now_ms - last_ms - 60_000
    match_id = new_match_id()
    store.create_match(match_id, header, start_ms, hash_token(secrets.token_urlsafe(32)),
                       hash_token(secrets.token_urlsafe(32)))
    for seq, ev in enumerate(events, 1):
        at_ms = round(ev["at"] * 1000)
        store.append(match_id, StoredEvent(seq, f"demo-{seq}", ev, start_ms + at_ms, "timekeeper"),
                     start_ms)
    return match_id


#: the states every screen is laid out for (scripts/screens.py, the layout tests)
SCREEN_STATES = ("pre_match", "running", "last_30s", "stopped", "penalty", "split",
                 "interval", "interval_over", "extra_period", "shootout", "final")


def state_reports(names: tuple[str, str] = ("Blue", "White"),
                  score: tuple[int, int] | None = None) -> dict[str, dict[str, Any]]:
    """One engine report per screen state (see :data:`SCREEN_STATES`), from real
    records: what the screens draw when they get that state. ``score`` overrides the
    score (e.g. two digits) to try the layout.

    >>> reps = state_reports()
    >>> [reps[s]["status"] for s in ("pre_match", "interval", "shootout", "final")]
    ['pre_match', 'interval', 'shootout', 'final']
    """
    def header(**options: Any) -> dict[str, Any]:
        h = {**DEMO_HEADER, "options": {**DEMO_HEADER["options"], "handicap": False,
                                        **options}}
        h["teams"] = {k: {**t, "name": n} for (k, t), n in zip(
            DEMO_HEADER["teams"].items(), names, strict=True)}
        return h

    def run(h: dict[str, Any], events: list[dict[str, Any]], at_s: float
            ) -> dict[str, Any]:
        m = Match(Setup.from_dict(h))
        for ev in events:
            m.apply(ev)
        rep = dict(m.report(round(at_s * 1000)))
        rep.setdefault("seq", len(events))
        rep.setdefault("at", at_s)
        return rep

    def to_tie(h: dict[str, Any], goal: bool = False) -> tuple[list[dict[str, Any]], float]:
        """Four periods (goalless, or one goal for B): the events, and the instant
        the tiebreak interval (or the final) comes."""
        m = Match(Setup.from_dict(h))
        events: list[dict[str, Any]] = []
        t = 0.0
        for n in range(4):
            evs = [{"type": "bowl_in", "at": t}]
            if goal and n == 0:
                evs.append({"type": "goal", "team": "B", "player": 3, "at": t + 40})
            for ev in evs:
                m.apply(ev)
                events.append(ev)
            rep = m.report(round((t + 451) * 1000))
            if rep["interval"] is None:
                return events, t + 451
            t = float(rep["interval"]["end"]) + 1
        return events, t

    plain = header()
    b0 = [{"type": "bowl_in", "at": 0.0}]
    out = {
        "pre_match": run(plain, [], 0),
        "running": run(plain, [*b0, {"type": "goal", "team": "A", "player": 1, "at": 30.0}],
                       100),
        "last_30s": run(plain, b0, 428),
        "stopped": run(plain, [*b0, {"type": "whistle", "at": 100.0}], 110),
        "penalty": run(plain, [*b0, {"type": "foul", "team": "B", "player": 2,
                                     "penalty": "2", "at": 100.0}], 110),
        "split": run(header(split_periods=True), [*b0, {"type": "whistle", "at": 220.0}],
                     230),
        "interval": run(plain, b0, 500),
        "interval_over": run(plain, b0, 450 + 240 + 5),
    }
    events, t = to_tie(plain)
    out["extra_period"] = run(plain, [*events, {"type": "bowl_in", "at": t}], t + 60)
    so = header(tiebreak="shootout")
    events, t = to_tie(so)
    order = {"type": "shootout_order", "first": "A", "at": t,
             "order": {"A": [1, 2, 3], "B": [1, 2, 3]}}
    out["shootout"] = run(so, [*events, order], t + 5)
    events, t = to_tie(plain, goal=True)
    out["final"] = run(plain, events, t + 60)
    for rep in out.values():
        if score is not None:
            rep["score"] = dict(zip(DEMO_HEADER["teams"], score, strict=True))
    return out
