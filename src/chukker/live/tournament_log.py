"""A tournament's log folded (issue 40): its events' kinds, the fold, and the one-time
import of the files older versions kept (``chukker.live.tournaments`` serves them).

Each event of a tournament's append-only log is one thing that happened to it:

* ``uploaded``: the organiser's file (the contract's document, checked as before), the
  hashes of its committee token and of its arenas' tokens;
* ``updated``: the same tournament uploaded again (a second upload);
* ``moved``: the committee moved a match to another slot or arena;
* ``live_made``: live matches made for fixtures whose teams became known;
* ``result``: a fixture's result published once its live match is final.

Any event may carry ``made`` (fixture -> live match id): the live matches written in
the same transaction as the event, so a fixture never has two.
"""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chukker.errors import ChukkerError
from chukker.live.fanout import Outbox, Subscriber
from chukker.store.base import StoreError, TournamentEvent, UnknownMatch
from chukker.tournament.model import Tournament, from_dict, to_datetime
from chukker.tournament.problems import Problem
from chukker.tournament.schedule import move
from chukker.tournament.standings import Played, Standings, standings

log = logging.getLogger("chukker.tournaments")

#: a tournament file of the old folder is at most this big (the upload's limit is 64 KiB)
MAX_FILE_BYTES = 4 << 20


class Kind:
    """The kinds of a tournament's events (the wire's words)."""

    UPLOADED = "uploaded"
    UPDATED = "updated"
    MOVED = "moved"
    LIVE_MADE = "live_made"
    RESULT = "result"


KINDS = frozenset({Kind.UPLOADED, Kind.UPDATED, Kind.MOVED, Kind.LIVE_MADE, Kind.RESULT})


class TournamentRefused(ChukkerError):
    """The service refuses a tournament command: ``code`` and ``params`` as the API's
    refusals; ``found``: the problems it lists; ``extra``: fields beside them."""

    def __init__(self, code: str, found: Iterable[Problem] = (),
                 extra: Mapping[str, Any] | None = None, **params: Any) -> None:
        self.code = code
        self.params = params
        self.found = list(found)
        self.extra = dict(extra or {})
        super().__init__(f"{code}: {params}" if params else code)


def json_default(v: Any) -> Any:
    if isinstance(v, dt.date | dt.datetime):
        return v.isoformat()
    raise TypeError(type(v).__name__)


def plain(doc: Any) -> Any:
    """``doc`` as JSON data (dates as ISO text)."""
    return json.loads(json.dumps(doc, default=json_default))


def web_tournament(doc: Mapping[str, Any]) -> Tournament:
    """The tournament of a stored document; a ``record`` path is never read (results come
    from the live matches only)."""
    t = from_dict(dict(doc))
    for mid, m in list(t.matches.items()):
        if m.record is not None:
            t.matches[mid] = replace(m, record=None)
    return t


def arena_key(arena: str | None) -> str:
    return arena or ""


def arena_slug(arena: str) -> str:
    """An arena's short name in links: ``/tournaments/<id>/arena/<slug>/console``."""
    return hashlib.sha1(arena.encode()).hexdigest()[:8] if arena else "-"


def identity(t: Tournament) -> tuple[str, str, int | None]:
    """What makes two uploads the same tournament: its name and venue (case and spaces
    aside) and the year of its first match (docs/tournament.md, "A second upload")."""

    def norm(x: str) -> str:
        return " ".join(x.split()).casefold()

    starts = [m.start for m in t.matches.values() if m.start is not None]
    return norm(t.name), norm(t.venue), min(starts).year if starts else None


def named_arenas(t: Tournament) -> list[str]:
    """The arenas of the tournament: a match with no arena is not an arena."""
    return sorted({m.arena for m in t.matches.values() if m.arena})


@dataclass(eq=False)
class LiveTournament:
    """A tournament folded from its log, with what this process derived from it."""

    id: str
    doc: dict[str, Any]
    t: Tournament
    committee_hash: str
    arena_hash: dict[str, str]
    live: dict[str, str] = field(default_factory=dict)
    #: the last event folded
    seq: int = 0
    #: fixture -> the result published for it
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: bumped whenever what the pages show changed
    version: int = 0
    #: bumped by every change; a view computed across a change is not kept
    gen: int = 0
    digest: Any = None
    last: tuple[Standings, dict[str, dict[str, Any]]] | None = None
    #: the stream's subscribers per language, and their outboxes
    subscribers: dict[str, set[Subscriber]] = field(default_factory=dict)
    outboxes: dict[str, Outbox] = field(default_factory=dict)
    sent: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def watched(self) -> bool:
        return any(self.subscribers.values())


def apply(lt: LiveTournament | None, tid: str, e: TournamentEvent) -> LiveTournament:
    """Fold one event into the tournament (``None`` before its first event).

    >>> doc = {"format": "chukker-tournament/1", "name": "T", "players": [], "teams": [],
    ...        "stages": [], "matches": []}
    >>> lt = apply(None, "t1", TournamentEvent(1, "uploaded", {
    ...     "doc": doc, "committee_hash": "c", "arena_hash": {}, "made": {}}, 0))
    >>> lt.seq, lt.t.name
    (1, 'T')
    """
    b = e.body
    if lt is None:
        if e.kind != Kind.UPLOADED:
            raise StoreError(f"tournament {tid}: event 1 is {e.kind!r}, not an upload")
        doc = copy.deepcopy(b["doc"])  # a later move edits the tournament's, not the event's
        lt = LiveTournament(tid, doc, web_tournament(doc), str(b["committee_hash"]),
                            dict(b.get("arena_hash", {})))
    elif e.kind == Kind.UPDATED:
        doc = copy.deepcopy(b["doc"])
        lt.doc, lt.t = doc, web_tournament(doc)
        lt.arena_hash = dict(b["arena_hash"])
        lt.live = dict(b["live"])
    elif e.kind == Kind.MOVED:
        mid = str(b["match"])
        start = to_datetime(b["start"]) if b.get("start") else None
        if mid in lt.t.matches:
            move(lt.t, mid, start, b.get("arena"))
        for md in lt.doc.get("matches", []):
            if md.get("id") == mid:
                if b.get("start"):
                    md["start"] = b["start"]
                if b.get("arena"):
                    md["arena"] = b["arena"]
        if b.get("unlinked"):
            lt.live.pop(mid, None)
    elif e.kind == Kind.RESULT:
        lt.results[str(b["match"])] = dict(b)
    elif e.kind not in KINDS:
        raise StoreError(f"tournament {tid}: event {e.seq} is of an unknown kind {e.kind!r}")
    for mid, live_id in dict(b.get("made", {})).items():
        lt.live.setdefault(str(mid), str(live_id))
    lt.seq = e.seq
    lt.last = None
    lt.gen += 1
    return lt


def digest(reports: Mapping[str, Mapping[str, Any]]) -> Any:
    """What the pages show of the live matches: a change of it is a new version."""
    return tuple(sorted(
        (k, r.get("seq"), r.get("status"), json.dumps(r.get("score")), r.get("period"))
        for k, r in reports.items()))


def played_standings(lt: LiveTournament, reports: Mapping[str, Mapping[str, Any]]
                     ) -> Standings:
    played = {
        mid: Played(("A", "B"), dict(rep))
        for mid, rep in reports.items()
        if rep.get("seq", 0) > 0 or rep.get("status") != "pre_match"
    }
    return standings(lt.t, played)


def now_playing(lt: LiveTournament, s: Standings) -> dict[str, dict[str, Any]]:
    """Per arena: the match playing now (or next), and the one after it."""
    by_arena: dict[str, list[str]] = {}
    ordered = sorted(lt.t.matches.values(), key=lambda m: (m.start or dt.datetime.max, m.id))
    for m in ordered:
        if m.arena:  # a match with no arena is on no arena's board
            by_arena.setdefault(m.arena, []).append(m.id)
    out: dict[str, dict[str, Any]] = {}
    for arena, ids in by_arena.items():
        pending = [mid for mid in ids if s.match(mid).status not in ("final", "refused")]
        cur = pending[0] if pending else None
        started = cur is not None and s.match(cur).status not in ("scheduled", "pre_match")
        out[arena] = {
            "current": cur,
            "playing": started,
            "next": pending[1] if len(pending) > 1 else None,
            "live": lt.live.get(cur) if cur else None,
            "slug": arena_slug(arena),
        }
    return out


# ------------------------------------------------------------- the old folder's files
def import_folder(store: Any, folder: Path) -> list[str]:
    """Import, once and in one transaction, the tournament files an older version kept in
    ``folder`` (one JSON file each: the document, the tokens' hashes and the live
    matches), skipping those the store holds already. The files stay where they are.
    The ids imported (empty when there was nothing new)."""
    if not folder.is_dir():
        return []
    held = {tid for tid, _ in store.tournaments()}
    batch: list[tuple[str, list[TournamentEvent]]] = []
    for p in sorted(folder.glob("*.json")):
        try:
            if p.stat().st_size > MAX_FILE_BYTES:
                log.warning("tournament file %s: larger than %d bytes; not imported", p,
                            MAX_FILE_BYTES)
                continue
            d = json.loads(p.read_text(encoding="utf-8"))
            tid = str(d["id"])
            if tid in held:
                continue
            web_tournament(d["doc"])  # a file that no longer reads is left out, and said
            live = {str(k): str(v) for k, v in dict(d.get("live", {})).items()}
            known = {}
            for mid, live_id in live.items():
                try:
                    store.get_match(live_id)
                except UnknownMatch:
                    continue
                known[mid] = live_id
            made_ms = int(p.stat().st_mtime * 1000)
            body = {"doc": d["doc"], "committee_hash": str(d["committee_hash"]),
                    "arena_hash": {str(k): str(v) for k, v in d["arena_hash"].items()},
                    "made": known, "imported_from": p.name}
            batch.append((tid, [TournamentEvent(1, Kind.UPLOADED, plain(body), made_ms)]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            log.warning("tournament file %s not imported: %s", p, e)
    if batch:
        store.import_tournaments(batch)
        log.info("imported %d tournament files of %s into the store: %s", len(batch), folder,
                 ", ".join(tid for tid, _ in batch))
    return [tid for tid, _ in batch]
