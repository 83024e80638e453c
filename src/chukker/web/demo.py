"""Demo content for ``chukker serve``: a match ready to start, a finished one, and a
tournament (the worked example of ``docs/tournament.md``) played up to its final."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from chukker.engine import Match, Setup
from chukker.live import Clock, hash_token, new_match_id
from chukker.store import EventStore, StoredEvent

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


#: the demo tournament: the worked example of ``docs/tournament.md`` in the examples
#: folder (beside ``src/`` in a clone, ``<venv>/share/chukker/examples`` when installed)
DEMO_TOURNAMENT = Path("tournament") / "fall-classic.toml"
#: how long before start-up the demo tournament's last played match ended (the finished
#: demo match, played just before, stays the newest finished match on the home page)
TOURNAMENT_ENDED_MS = 90 * 60_000
#: how long before its first match the organiser uploaded the demo tournament
UPLOADED_BEFORE_MS = 60 * 60_000


def demo_tournament_file() -> Path | None:
    """The demo tournament's file, found as ``chukker examples`` finds the examples."""
    from chukker.ops_cli import examples_dir

    folder = examples_dir()
    path = folder / DEMO_TOURNAMENT if folder is not None else None
    return path if path is not None and path.is_file() else None


@dataclass(frozen=True)
class DemoTournament:
    """The seeded demo tournament: its page, its secrets (shown once), what was played."""

    id: str
    name: str
    url: str
    committee_token: str
    #: arena -> the link of its timekeeper console (with the arena's token)
    consoles: dict[str, str]
    #: the matches played from the example's records, and those left to play
    played: tuple[str, ...]
    to_play: tuple[str, ...]


class DemoError(RuntimeError):
    """The demo tournament could not be seeded; the message says why (one line)."""


def seed_tournament(store: EventStore, base_url: str, now_ms: int,
                    path: Path | None = None) -> DemoTournament:
    """Upload the example tournament as its organiser would, then play the matches that
    have a record in the example, except the last stage's (the final stays to play).

    The upload is the organiser's: ``POST /tournaments/api`` on the app, in process,
    with a one-off organiser token; the matches whose teams become known (semi-finals,
    final) are made live by the tournament pages as they are when the tournament is
    viewed. Each record's events are stored on its live match, stamped in the past: the
    schedule's spacing, the last played match ending :data:`TOURNAMENT_ENDED_MS` before
    ``now_ms``. Links in the answer are on ``base_url``. Raises :class:`DemoError`.
    """
    path = path or demo_tournament_file()
    if path is None:
        raise DemoError("the examples are not installed (see `chukker examples`)")
    return asyncio.run(_seed_tournament(store, path, base_url.rstrip("/"), now_ms))


async def _seed_tournament(store: EventStore, path: Path, base: str, now_ms: int
                           ) -> DemoTournament:
    from chukker.engine import EngineError, SetupError
    from chukker.record import RecordError
    from chukker.record import load_path as load_record
    from chukker.tournament.model import TournamentError, load_path

    try:
        t = load_path(path)
        text = path.read_text(encoding="utf-8")
    except (TournamentError, OSError) as e:
        raise DemoError(f"{path}: {e}") from None
    from chukker.live import LiveService
    from chukker.live.tournaments import TournamentService

    kept = TournamentService(LiveService(store))
    if any(lt.t.name == t.name for lt in await kept.loaded_all()):
        raise DemoError(f"the database already holds the tournament {t.name!r}")
    last_stage = list(t.stages)[-1] if t.stages else None
    records: dict[str, dict[str, Any]] = {}
    for m in t.matches.values():
        rp = t.record_path(m)
        if m.stage == last_stage or rp is None:
            continue
        try:
            records[m.id] = load_record(rp)
        except RecordError as e:
            raise DemoError(str(e)) from None
    try:
        times = _timeline(t, records, now_ms)
    except (RecordError, EngineError, SetupError) as e:
        raise DemoError(str(e)) from None
    first = min((a for a, _b in times.values()), default=now_ms)
    secret = secrets.token_urlsafe(32)

    async def call(at_ms: int, method: str, url: str, body: Any = None) -> Any:
        # a fresh app each time: its live service reads the matches from the store as
        # they are now, and its clock says when the organiser did this
        from chukker.web.app import create_app
        from chukker.web.state import state_of

        app = create_app(store, organiser=secret)
        state_of(app).service.clock = _ClockAt(at_ms)
        status, answer = await _asgi(app, method, base + url, body, secret)
        if status >= 300:
            raise DemoError(f"{method} {url}: {status} {answer}")
        return answer

    created = await call(first - UPLOADED_BEFORE_MS, "POST", "/tournaments/api",
                         {"text": text, "format": "toml"})
    tid: str = created["tournament_id"]
    live: dict[str, str] = dict(created["matches"])
    played: list[str] = []
    while todo := [mid for mid in live if mid in records and mid not in played]:
        for mid in todo:
            try:
                _play(t, store, live[mid], records[mid], times[mid][0])
            except (EngineError, SetupError, KeyError, ValueError) as e:
                raise DemoError(f"match {mid}: {e}") from None
            played.append(mid)
        done_ms = max(times[mid][1] for mid in todo)
        live = await _settled(store, tid, done_ms + 60_000)
    consoles = {a: v["console"] for a, v in created["arenas"].items() if a != "-"}
    return DemoTournament(tid, t.name, created["urls"]["page"], created["committee_token"],
                          consoles, tuple(played),
                          tuple(mid for mid in t.matches if mid not in played))


async def _settled(store: EventStore, tid: str, at_ms: int) -> dict[str, str]:
    """The tournament's live matches once the officials' service has settled it at
    ``at_ms`` (results published, the live matches whose teams became known made)."""
    from chukker.live import LiveService
    from chukker.live.tournaments import TournamentService

    svc = LiveService(store)
    svc.clock = _ClockAt(at_ms)
    tsvc = TournamentService(svc)
    await tsvc.ensure_loaded()
    lt = tsvc.get(tid)
    if lt is None:
        raise DemoError(f"tournament {tid} is not in the store")
    await tsvc.refresh(lt)
    return dict(lt.live)


def _timeline(t: Any, records: dict[str, dict[str, Any]], now_ms: int
              ) -> dict[str, tuple[int, int]]:
    """When each record's match started and ended (epoch ms): the schedule's spacing (a
    match without a start follows the previous one), the last ending before ``now_ms``."""
    import datetime as dt

    from chukker.record import replay

    # a record's length: up to its final horn (or its last event, if not over)
    length = {mid: round(float(replay(rec).get("at") or 0) * 1000)
              for mid, rec in records.items()}
    order = sorted(records, key=lambda mid: (t.matches[mid].start or dt.datetime.max, mid))
    first = next((t.matches[mid].start for mid in order if t.matches[mid].start), None)
    offsets: dict[str, int] = {}
    free = 0
    for mid in order:
        start = t.matches[mid].start
        off = round((start - first).total_seconds() * 1000) if start and first else free
        offsets[mid] = off
        free = max(free, off + length[mid] + 15 * 60_000)
    end = max((offsets[mid] + length[mid] for mid in order), default=0)
    zero = now_ms - TOURNAMENT_ENDED_MS - end
    return {mid: (zero + off, zero + off + length[mid]) for mid, off in offsets.items()}


def _play(t: Any, store: EventStore, live_id: str, record: dict[str, Any],
          start_ms: int) -> None:
    """Store ``record``'s events on the live match ``live_id``, each checked by the
    engine first, as played from ``start_ms``.

    The record's teams are the live match's as the tournament reads them: by position
    (the first is ``A``), unless they are keyed by the teams' ids."""
    row = store.get_match(live_id)
    keys, live_keys = list(record["teams"]), list(row.header["teams"])
    if all(k in t.teams for k in keys):
        by_name = {tm["name"]: k for k, tm in row.header["teams"].items()}
        by_key = {k: by_name[t.teams[k].name] for k in keys}
    else:
        by_key = dict(zip(keys, live_keys, strict=True))
    m = Match(Setup.from_dict(row.header))
    events = [_rekey(ev, by_key) for ev in record.get("events", [])]
    for ev in events:
        m.apply(ev)
    for seq, ev in enumerate(events, 1):
        at_ms = start_ms + round(float(ev["at"]) * 1000)
        store.append(live_id, StoredEvent(seq, f"demo-{seq}", ev, at_ms, "timekeeper"),
                     start_ms)


def _rekey(ev: dict[str, Any], by_key: dict[str, str]) -> dict[str, Any]:
    """``ev`` with its team keys (``team``, a shootout's ``first`` and ``order``) renamed."""
    out = dict(ev)
    for f in ("team", "first"):
        if isinstance(out.get(f), str):
            out[f] = by_key.get(out[f], out[f])
    if isinstance(out.get("order"), dict):
        out["order"] = {by_key.get(k, k): v for k, v in out["order"].items()}
    return out


class _ClockAt(Clock):
    """A live service's clock stopped at ``at_ms`` (when the organiser did something)."""

    def __init__(self, at_ms: int) -> None:
        super().__init__()
        self.at_ms = at_ms

    def now_ms(self) -> int:
        return self.at_ms


async def _asgi(app: Any, method: str, url: str, body: Any, token: str) -> tuple[int, Any]:
    """One HTTP request to the ASGI ``app`` in process; its status and JSON answer."""
    parts = urlsplit(url)
    data = b"" if body is None else json.dumps(body).encode()
    headers = [(b"host", parts.netloc.encode()), (b"accept", b"application/json"),
               (b"authorization", f"Bearer {token}".encode()),
               (b"content-type", b"application/json"),
               (b"content-length", str(len(data)).encode())]
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
             "http_version": "1.1", "method": method, "scheme": parts.scheme or "http",
             "path": parts.path, "raw_path": parts.path.encode(), "query_string": b"",
             "root_path": "", "headers": headers, "client": ("127.0.0.1", 0),
             "server": (parts.hostname or "127.0.0.1", parts.port or 80)}
    done = asyncio.Event()
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": data, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                done.set()

    await app(scope, receive, send)
    raw = b"".join(chunks)
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw[:200].decode(errors="replace")


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
