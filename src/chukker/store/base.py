"""What every event store offers: the rows, the errors and the interface.

A store keeps, per match, the record's header (format, rules, options, teams),
the wall-clock instant the record started, the hashes of the match's two
secrets, and an append-only list of events numbered 1, 2, 3, ... (``seq``,
which is also the event's position in the record, the number ``undo`` names).
Every event carries the ``command_id`` its client sent; a ``command_id`` is
unique within a match, so a retried command never becomes a second event.

The store does not judge events: the service asks the engine first and
appends only what the engine accepted. ``append`` returns only once the event
is durable (committed with a full sync).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from chukker.errors import ChukkerError

#: what a match id may be: the API answers 404 for any other, so nothing else is stored
MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def verify_match_id(match_id: str, where: str = "") -> None:
    """Raise :class:`StoreError` unless ``match_id`` is a match id the API can serve.

    >>> verify_match_id("a1-b_2")
    >>> verify_match_id("x y<b>", "export/manifest.json")
    Traceback (most recent call last):
    ...
    chukker.store.base.StoreError: export/manifest.json: 'x y<b>' is not a match id ...
    """
    if not isinstance(match_id, str) or not MATCH_ID.match(match_id):
        head = f"{where}: " if where else ""
        raise StoreError(f"{head}{match_id!r} is not a match id (1-64 letters, digits, - and _)")


class StoreError(ChukkerError):
    """Something about the stored data or a request to the store is wrong."""

    code = "store_refused"


class UnknownMatch(StoreError):
    """No match with that id.

    >>> str(UnknownMatch("x1"))
    'no match with id x1'
    """

    def __init__(self, match_id: str) -> None:
        self.match_id = match_id
        super().__init__(f"no match with id {match_id}", code="unknown_match",
                         params={"match_id": match_id})


class SeqTaken(StoreError):
    """Another writer appended that sequence number first; re-read and retry."""

    def __init__(self, match_id: str, seq: int) -> None:
        self.match_id = match_id
        self.seq = seq
        super().__init__(f"match {match_id}: event {seq} was appended by another writer",
                         code="seq_taken", params={"match_id": match_id, "seq": seq})


class CommandExists(StoreError):
    """That ``command_id`` is already an event of the match: ``existing`` is that event."""

    def __init__(self, existing: StoredEvent) -> None:
        self.existing = existing
        super().__init__(
            f"command {existing.command_id!r} is already event {existing.seq} of the match",
            code="command_exists", params={"command_id": existing.command_id, "seq": existing.seq})


class UnknownTournament(StoreError):
    """No tournament with that id.

    >>> str(UnknownTournament("t1"))
    'no tournament with id t1'
    """

    def __init__(self, tournament_id: str) -> None:
        self.tournament_id = tournament_id
        super().__init__(f"no tournament with id {tournament_id}", code="unknown_tournament",
                         params={"tournament_id": tournament_id})


class TournamentSeqTaken(StoreError):
    """Another writer appended that event of the tournament first (or, for event 1, made a
    tournament with that id): re-read its log, fold it again and decide again."""

    def __init__(self, tournament_id: str, seq: int) -> None:
        self.tournament_id = tournament_id
        self.seq = seq
        super().__init__(
            f"tournament {tournament_id}: event {seq} was appended by another writer",
            code="tournament_seq_taken", params={"tournament_id": tournament_id, "seq": seq})


class StoreUnavailable(StoreError):
    """The database cannot be reached now (connection lost, not back yet); nothing was
    written. Retry later: the store reconnects by itself.

    >>> str(StoreUnavailable("connection refused"))
    'the event store cannot be reached: connection refused'
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"the event store cannot be reached: {reason}", code="store_unavailable",
                         params={"reason": reason})


class StorageFull(StoreError):
    """The database's disk is full (SQLite's SQLITE_FULL or ENOSPC, PostgreSQL's
    SQLSTATE 53100); nothing was written. A state, not a crash: writes succeed again
    once space is freed.

    >>> str(StorageFull("database or disk is full"))
    'the event store has no space left: database or disk is full'
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"the event store has no space left: {reason}", code="storage_full",
                         params={"reason": reason})


class Backend(StrEnum):
    SQLITE = "sqlite"
    POSTGRES = "postgresql"


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One stored match (without its events)."""

    id: str
    header: dict[str, Any]
    created_ms: int
    #: wall-clock epoch ms at which the record started (its first event); None before
    start_ms: int | None
    timekeeper_hash: str
    committee_hash: str


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One event as stored: ``event`` is the engine's event dict, with its ``at``."""

    seq: int
    command_id: str
    event: dict[str, Any]
    #: wall-clock epoch ms at which the server accepted it
    recorded_ms: int
    #: which secret sent it: ``timekeeper`` or ``committee``
    actor: str
    #: the event's ``at`` in whole milliseconds, read once where the event enters (the
    #: record writes seconds; everything after the store counts milliseconds)
    at_ms: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        at = self.event.get("at")
        ms = round(float(at) * 1000) if isinstance(at, int | float) else 0
        object.__setattr__(self, "at_ms", ms)

    def body(self) -> str:
        """The event as compact JSON text, its keys in the order they came.

        >>> StoredEvent(1, "c", {"type": "bowl_in", "at": 0.0}, 5, "timekeeper").body()
        '{"type":"bowl_in","at":0.0}'
        """
        return json.dumps(self.event, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class HornRow:
    """A horn the service sounded: when it was due (record ms) and when it went out."""

    at_ms: int
    period: int
    kind: str
    sounded_ms: int


@dataclass(frozen=True, slots=True)
class MatchImport:
    """What an import writes for one match: the match itself when ``new`` (else it is
    already stored with the same header and secrets), the events after those stored,
    the horns, and when it was archived."""

    row: MatchRow
    events: list[StoredEvent]
    horns: list[HornRow]
    archived_ms: int | None = None
    new: bool = True


#: a notification's key for a tournament's log: ``t.<tournament id>`` (a match id never
#: holds a dot, so the two never meet)
TOURNAMENT_PREFIX = "t."


def tournament_key(tournament_id: str) -> str:
    """The key the store's notifications use for a tournament's log.

    >>> tournament_key("ab12"), tournament_of("t.ab12"), tournament_of("m1")
    ('t.ab12', 'ab12', None)
    """
    return TOURNAMENT_PREFIX + tournament_id


def tournament_of(key: str) -> str | None:
    """The tournament id of a notification's key, or None for a match's."""
    if key.startswith(TOURNAMENT_PREFIX):
        tid = key[len(TOURNAMENT_PREFIX):]
        return tid if MATCH_ID.match(tid) else None
    return None


@dataclass(frozen=True, slots=True)
class TournamentEvent:
    """One event of a tournament's append-only log (``chukker.live.tournaments`` folds
    them): ``kind`` is what happened (an upload, a second upload, a committee's move,
    live matches made for fixtures, a result published), ``body`` its data."""

    seq: int
    kind: str
    body: dict[str, Any]
    #: wall-clock epoch ms at which the server accepted it
    recorded_ms: int

    def text(self) -> str:
        """The body as compact JSON text.

        >>> TournamentEvent(1, "moved", {"match": "p1"}, 5).text()
        '{"match":"p1"}'
        """
        return json.dumps(self.body, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class TournamentWrite:
    """What one tournament event writes, in one transaction: the event, the live matches
    made with it (their rows; no events yet) and the live matches it files away."""

    event: TournamentEvent
    matches: tuple[MatchRow, ...] = ()
    archive: tuple[str, ...] = ()


class EventStore(Protocol):
    """The interface the live service uses; SQLite and PostgreSQL implement it.

    Calls are blocking (the service runs them in a worker thread) and safe to
    make from several threads.
    """

    backend: Backend

    def create_match(
        self, match_id: str, header: dict[str, Any], created_ms: int,
        timekeeper_hash: str, committee_hash: str,
    ) -> MatchRow: ...

    def get_match(self, match_id: str) -> MatchRow: ...

    def list_matches(self, limit: int = 100,
                     before: tuple[int, str] | None = None) -> list[MatchRow]:
        """Newest first (``created_ms``, then ``id``, descending), at most ``limit``,
        those strictly before the ``before`` cursor; served by an index."""
        ...

    def append(self, match_id: str, event: StoredEvent, start_ms: int) -> None:
        """Append ``event``; for ``seq == 1`` also set the match's ``start_ms``.

        Raises :class:`CommandExists` or :class:`SeqTaken`; appends nothing then.
        """
        ...

    def events(self, match_id: str, after_seq: int = 0) -> list[StoredEvent]: ...

    def record_horn(self, match_id: str, horn: HornRow) -> bool:
        """Keep a horn for the audit; False if that horn was already recorded."""
        ...

    def horns(self, match_id: str) -> list[HornRow]: ...

    def set_archived(self, match_id: str, archived: bool, at_ms: int) -> None:
        """The committee files a match away from the home page (or brings it back)."""
        ...

    def archived(self) -> set[str]: ...

    def close(self) -> None: ...

    def import_matches(self, batch: list[MatchImport]) -> None:
        """Write ``batch`` in one transaction: all of it, or (on any error, or a kill)
        nothing."""
        ...

    def storage_problem(self) -> str | None:
        """Why writes cannot be stored now (the disk is full), or None; cheap, for
        ``/readyz``. Once space is back it answers None again by itself."""
        ...

    # ------------------------------------------------------------- tournaments
    def append_tournament(self, tournament_id: str, write: TournamentWrite) -> None:
        """Append ``write.event`` to the tournament's log (event 1 makes the tournament),
        with its live matches and archive flags, in one transaction.

        Raises :class:`TournamentSeqTaken` when the log's last event is not
        ``seq - 1`` (another writer was first; nothing is written), or
        :class:`UnknownTournament`."""
        ...

    def tournament_events(self, tournament_id: str,
                          after_seq: int = 0) -> list[TournamentEvent]: ...

    def tournaments(self) -> list[tuple[str, int]]:
        """Every tournament's id and last ``seq``, oldest first."""
        ...

    def import_tournaments(self, batch: list[tuple[str, list[TournamentEvent]]]) -> int:
        """Write the events of each tournament after those stored, all in one transaction;
        how many events were written."""
        ...


def header_json(header: dict[str, Any]) -> str:
    return json.dumps(header, sort_keys=True, separators=(",", ":"))


# Both backends store the same columns; these read a row back.
MATCH_COLS = "id, header, created_ms, start_ms, timekeeper_hash, committee_hash"
EVENT_COLS = "seq, command_id, body, recorded_ms, actor"
TOURNAMENT_EVENT_COLS = "seq, kind, body, recorded_ms"


def _no_lone_surrogates(text: str) -> Any:
    """JSON text to data with every lone surrogate (``\\udXXX`` escapes stored by older
    versions) replaced by U+FFFD, so a stored name can never break a page.

    >>> _no_lone_surrogates('{"n": "Bl\\\\ud800ue"}')
    {'n': 'Bl\ufffdue'}
    """
    data = json.loads(text)
    if "\\ud" not in text.lower():
        return data

    def fix(v: Any) -> Any:
        if isinstance(v, str):
            return v.encode("utf-8", "surrogatepass").decode("utf-8", "replace").replace(
                "\ufffd\ufffd\ufffd", "\ufffd")
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, dict):
            return {fix(k): fix(x) for k, x in v.items()}
        return v

    return fix(data)


def match_row(r: tuple[Any, ...]) -> MatchRow:
    """A :class:`MatchRow` from a row of ``MATCH_COLS``."""
    return MatchRow(
        id=r[0], header=_no_lone_surrogates(r[1]), created_ms=r[2], start_ms=r[3],
        timekeeper_hash=r[4], committee_hash=r[5],
    )


def event_row(r: tuple[Any, ...]) -> StoredEvent:
    """A :class:`StoredEvent` from a row of ``EVENT_COLS``."""
    return StoredEvent(
        seq=r[0], command_id=r[1], event=json.loads(r[2]), recorded_ms=r[3], actor=r[4]
    )


def tournament_event_row(r: tuple[Any, ...]) -> TournamentEvent:
    """A :class:`TournamentEvent` from a row of ``TOURNAMENT_EVENT_COLS``."""
    return TournamentEvent(seq=r[0], kind=r[1], body=_no_lone_surrogates(r[2]),
                           recorded_ms=r[3])
