"""NATS JetStream: the officials' process publishes every durable event for the edges.

Subjects and messages (JSON; one JetStream stream, ``nats.stream``, holds them all):

* ``<prefix>.match.<match id>``: first the match's header (``seq`` 0), then each
  stored event in ``seq`` order (1, 2, 3, ...), each exactly as the store keeps it;
* every message's ``Nats-Msg-Id`` is ``<match id>.<seq>``: JetStream drops a message
  it already holds (within the stream's duplicate window), and an edge ignores any
  ``seq`` it already has, so a message published twice is applied once.

:class:`NatsPublisher` is a :class:`chukker.live.Listener`: its methods only note
"match M has events up to S" in a bounded map and wake one background task; no key
press and no horn waits on NATS. That task publishes what each match lacks, reading
the events from ``source`` (the live service's memory, else the store): the stream's
own last message on the match's subject tells it where to start after a reconnect or
a restart, so an outage of any length loses nothing acknowledged (JetStream keeps no
copy of what it never received; the store does).

>>> subject("chukker", "m1"), msg_id("m1", 0)
('chukker.match.m1', 'm1.0')
>>> decode(header_body("m1", {"format": "chukker-match/1"}, 5))["seq"]
0
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import ssl
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext
from nats.js.api import StorageType, StreamConfig

from chukker.config import NatsSettings
from chukker.errors import ChukkerError
from chukker.feeds.backoff import Backoff, failure

log = logging.getLogger("chukker.feeds.nats")

#: seconds to wait for JetStream's acknowledgement of one message
ACK_TIMEOUT_S = 5.0
#: seconds to wait for the server when connecting
CONNECT_TIMEOUT_S = 2.0
#: the stream's duplicate window (seconds): a message id seen within it is dropped
DUPLICATE_WINDOW_S = 600.0
#: the header that carries the message's ``seq`` (0: the header)
SEQ_HEADER = "Chukker-Seq"
#: the header that carries the officials' signature (HMAC-SHA256, hex) of a message
SIG_HEADER = "Chukker-Sig"


class Unsigned(ChukkerError):
    """A message without the officials' signature, or with a bad one."""

    code = "unsigned"


def signature(key: str, subj: str, seq: int, body: bytes) -> str:
    """The officials' HMAC-SHA256 of a message: its subject, its ``seq`` and its body.

    >>> sig = signature("k" * 32, "chukker.match.m1", 3, b"{}")
    >>> len(sig), sig == signature("k" * 32, "chukker.match.m2", 3, b"{}")
    (64, False)
    """
    mac = hmac.new(key.encode(), digestmod=hashlib.sha256)
    mac.update(b"%s\n%d\n" % (subj.encode(), seq))
    mac.update(body)
    return mac.hexdigest()


def signed_id(key: str | None, base: str) -> str:
    """A ``Nats-Msg-Id`` only the officials can make: ``base`` and its HMAC (without a
    key, ``base`` alone: anyone can make it, and drop the officials' message with it).

    >>> signed_id(None, "m1.3"), len(signed_id("k" * 32, "m1.3"))
    ('m1.3', 37)
    """
    if not key:
        return base
    mac = hmac.new(key.encode(), b"id\n" + base.encode(), hashlib.sha256)
    return f"{base}.{mac.hexdigest()[:32]}"


def headers_for(key: str | None, subj: str, seq: int, body: bytes, base_id: str
                ) -> dict[str, str]:
    """A message's headers: its id (:func:`signed_id`), its seq and, with a key, its
    signature."""
    out = {"Nats-Msg-Id": signed_id(key, base_id), SEQ_HEADER: str(seq)}
    if key:
        out[SIG_HEADER] = signature(key, subj, seq, body)
    return out


def verified_seq(key: str | None, subj: str, headers: Mapping[str, str] | None,
                 body: bytes) -> int:
    """The ``seq`` of a message the officials signed; :class:`Unsigned` otherwise. Without
    a key, the ``Chukker-Seq`` header read as a number (:class:`ValueError` if it is not).

    >>> k = "k" * 32
    >>> verified_seq(k, "p.match.m1", headers_for(k, "p.match.m1", 2, b"{}", "m1.2"), b"{}")
    2
    >>> verified_seq(k, "p.match.m1", {SEQ_HEADER: "abc"}, b"{}")
    Traceback (most recent call last):
    ...
    chukker.feeds.nats.Unsigned: unsigned
    """
    hdr = headers or {}
    raw = hdr.get(SEQ_HEADER, "")
    if not (0 < len(raw) <= 12 and raw.isascii() and raw.isdigit()):
        if key:
            raise Unsigned("unsigned")
        raise ValueError(f"{SEQ_HEADER} is not a number")
    seq = int(raw)
    if key:
        sig = hdr.get(SIG_HEADER)
        if not sig:
            raise Unsigned("unsigned")
        if not hmac.compare_digest(sig.encode(), signature(key, subj, seq, body).encode()):
            raise Unsigned("bad signature")
    return seq

#: ``source(match_id, after_seq)``: the messages (seq, body) of ``match_id`` after
#: ``after_seq`` (-1: the header first), oldest first; ``None``: no such match
Source = Callable[[str, int], Awaitable[list[tuple[int, bytes]] | None]]


#: a key naming a tournament's log rather than a match (as the store's notifications:
#: ``t.<tournament id>``; a match id never holds a dot)
TOURNAMENT_PREFIX = "t."


def tournament_key(tournament_id: str) -> str:
    return TOURNAMENT_PREFIX + tournament_id


def subject(prefix: str, key: str) -> str:
    """The subject of a match's messages, or of a tournament's (``key`` = ``t.<id>``).

    >>> subject("chukker", "t.ab12")
    'chukker.tournament.ab12'
    """
    if key.startswith(TOURNAMENT_PREFIX):
        return f"{prefix}.tournament.{key[len(TOURNAMENT_PREFIX):]}"
    return f"{prefix}.match.{key}"


def audit_subject(prefix: str, match_id: str) -> str:
    """The horns' audit rows of one match."""
    return f"{prefix}.audit.{match_id}"


def archive_subject(prefix: str) -> str:
    """The archive flags: each message holds every archived match (the last one wins)."""
    return f"{prefix}.archive"


def stream_subjects(prefix: str) -> list[str]:
    return [f"{prefix}.match.*", f"{prefix}.tournament.*", f"{prefix}.audit.*",
            archive_subject(prefix)]


def msg_id(key: str, seq: int) -> str:
    return f"{key}.{seq}"


def _dumps(v: Any) -> bytes:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()


def header_body(match_id: str, header: Mapping[str, Any], created_ms: int) -> bytes:
    """The first message of a match (``seq`` 0). The secrets' hashes stay home: an edge
    takes no writes and checks no token."""
    return _dumps({"kind": "header", "match_id": match_id, "seq": 0, "header": header,
                   "created_ms": created_ms})


def event_body(match_id: str, seq: int, command_id: str, event: Mapping[str, Any],
               recorded_ms: int, actor: str, start_ms: int | None) -> bytes:
    """One stored event; ``start_ms`` (the record's start, epoch ms) with each."""
    return _dumps({"kind": "event", "match_id": match_id, "seq": seq,
                   "command_id": command_id, "event": event, "recorded_ms": recorded_ms,
                   "actor": actor, "start_ms": start_ms})


def tournament_body(tournament_id: str, seq: int, kind: str, body: Mapping[str, Any],
                    recorded_ms: int) -> bytes:
    """One event of a tournament's log (its kind as ``event_kind``), as the store keeps it
    but for the tokens' hashes (an edge checks no token)."""
    return _dumps({"kind": "tournament", "tournament_id": tournament_id, "seq": seq,
                   "event_kind": kind, "body": without_hashes(body),
                   "recorded_ms": recorded_ms})


def without_hashes(body: Mapping[str, Any]) -> dict[str, Any]:
    """A tournament event's body with its tokens' hashes blanked (the arenas' names stay).

    >>> without_hashes({"committee_hash": "x", "arena_hash": {"A": "y"}, "made": {}})
    {'committee_hash': '-', 'arena_hash': {'A': '-'}, 'made': {}}
    """
    out = dict(body)
    if "committee_hash" in out:
        out["committee_hash"] = "-"
    if isinstance(out.get("arena_hash"), dict):
        out["arena_hash"] = {k: "-" for k in out["arena_hash"]}
    return out


def horn_body(match_id: str, at_ms: int, period: int, horn_kind: str,
              sounded_ms: int) -> bytes:
    """One row of the horns' audit (``GET /api/matches/{id}/horns``)."""
    return _dumps({"kind": "horn", "match_id": match_id, "seq": 0, "at_ms": at_ms,
                   "period": period, "horn_kind": horn_kind, "sounded_ms": sounded_ms})


def archive_body(archived: list[str], at_ms: int) -> bytes:
    """Every archived match (sorted): an edge files away these and brings back the rest."""
    return _dumps({"kind": "archive", "seq": 0, "archived": sorted(archived),
                   "at_ms": at_ms})


KINDS = frozenset({"header", "event", "tournament", "horn", "archive"})


def decode(data: bytes) -> dict[str, Any]:
    """A message's JSON object; :class:`ValueError` for anything else."""
    v = json.loads(data)
    if not isinstance(v, dict) or v.get("kind") not in KINDS or \
            not isinstance(v.get("seq"), int) or (
                v["kind"] in ("header", "event", "horn")
                and not isinstance(v.get("match_id"), str)) or (
                v["kind"] == "tournament" and not isinstance(v.get("tournament_id"), str)):
        raise ValueError("not a chukker message")
    return v


def display(url: str) -> str:
    """``url`` without user and password (for logs and ``/readyz``).

    >>> display("nats://ann:pw@hub.club:4222")
    'nats://hub.club:4222'
    """
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.rpartition('@')[2]}"


async def connect(settings: NatsSettings, name: str,
                  on_lost: Callable[[], None] | None = None) -> NatsClient:
    """A connection that does not reconnect by itself: its owner notices the loss
    (``on_lost``), connects again and carries on from what it knows it has."""
    assert settings.url is not None

    async def lost(*_args: Any) -> None:
        if on_lost is not None:
            on_lost()

    async def error(e: Exception) -> None:
        log.debug("nats: %s", e)

    return await nats.connect(settings.url, name=name, allow_reconnect=False,
                              connect_timeout=CONNECT_TIMEOUT_S, max_reconnect_attempts=0,
                              disconnected_cb=lost, closed_cb=lost, error_cb=error,
                              ping_interval=5, max_outstanding_pings=2,
                              **auth_options(settings))


def auth_options(settings: NatsSettings) -> dict[str, Any]:
    """nats-py's options for the settings' authentication and TLS (none: none).

    >>> from chukker.config import NatsSettings
    >>> sorted(auth_options(NatsSettings(url="nats://h:4222", user="ed", password="pw")))
    ['password', 'user']
    """
    out: dict[str, Any] = {}
    if settings.user:
        out["user"] = settings.user
        out["password"] = settings.password or ""
    if settings.token:
        out["token"] = settings.token
    if settings.nkey_seed:
        out["nkeys_seed"] = settings.nkey_seed
    if settings.creds:
        out["user_credentials"] = settings.creds
    tls_url = (settings.url or "").startswith("tls://")
    if tls_url or settings.tls_ca or settings.tls_cert:
        ctx = ssl.create_default_context(cafile=settings.tls_ca or None)
        if settings.tls_cert:
            ctx.load_cert_chain(settings.tls_cert, settings.tls_key or None)
        out["tls"] = ctx
    return out


async def ensure_stream(js: JetStreamContext, settings: NatsSettings) -> None:
    """The stream of the matches and tournaments (file storage), made if missing; one made
    by an older version (the matches alone) is given the other subjects."""
    subjects = stream_subjects(settings.prefix)
    try:
        info = await js.stream_info(settings.stream)
    except nats.js.errors.NotFoundError:
        await js.add_stream(StreamConfig(
            name=settings.stream, subjects=subjects,
            storage=StorageType.FILE, duplicate_window=DUPLICATE_WINDOW_S))
        return
    have = list(info.config.subjects or [])
    if not set(subjects) <= set(have):
        await js.update_stream(replace(info.config, subjects=sorted({*have, *subjects})))


class JetStreamLink:
    """A connection to JetStream that is kept up: connect, make sure the stream is there,
    run :meth:`_session` until the connection fails, then wait (doubling, with jitter)
    and connect again. The publisher and an edge's replica are both one.

    A subclass names itself (:attr:`client_name`, :attr:`log`), sets :attr:`connected`
    in :meth:`_session` once it serves, and may tidy up in :meth:`_down`."""

    client_name = "chukker"
    #: seconds for one JetStream request (a publish's acknowledgement, a stream's info)
    request_timeout = ACK_TIMEOUT_S
    log = log
    settings: NatsSettings
    #: make the stream if missing (the officials; an edge may only read it)
    creates_stream = True

    def __init__(self) -> None:
        self._lost = asyncio.Event()
        self.connected = False
        self.connections = 0
        self.last_error: str | None = None

    async def _session(self, js: JetStreamContext) -> None:
        """Serve on the connection until it fails (raise) or :attr:`_lost` is set."""
        raise NotImplementedError

    def _down(self) -> None:
        """The connection has ended (:attr:`connected` is already False)."""

    async def _run(self) -> None:
        backoff = Backoff()
        while True:
            nc: NatsClient | None = None
            try:
                self._lost = asyncio.Event()
                nc = await connect(self.settings, self.client_name, self._lost.set)
                js = nc.jetstream(timeout=self.request_timeout)
                if self.creates_stream:
                    await ensure_stream(js, self.settings)
                self.connections += 1
                self.last_error = None
                backoff.reset()
                await self._session(js)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - server gone or refusing: retry later
                self.last_error = failure(e)
                if self.connected:
                    self.log.warning("%s: connection to NATS lost: %s", self.client_name,
                                     self.last_error)
            finally:
                self.connected = False
                self._down()
                if nc is not None:
                    with contextlib.suppress(Exception):
                        await nc.close()
            await backoff.wait()


#: ``horns(match_id)``: the match's stored horns' audit rows, each ``(ident, body)``
#: (``ident`` names the row: ``<at_ms>.<kind>``)
HornSource = Callable[[str], Awaitable[list[tuple[str, bytes]]]]
#: ``archived()``: the ids of every archived match
ArchiveSource = Callable[[], Awaitable[list[str]]]
#: seconds between two looks at the store's archive flags (the officials' process only)
ARCHIVE_CHECK_S = 1.0
#: seconds a horn's audit row is looked for in the store after the horn sounded
HORN_WAIT_S = 10.0


class NatsPublisher(JetStreamLink):
    """A :class:`chukker.live.Listener` publishing every durable event to JetStream:
    the matches' headers and events, the tournaments' events (keys ``t.<id>``), the
    horns' audit rows (:meth:`horn_note`) and the archive flags (``archived``)."""

    client_name = "chukker-officials"

    def __init__(self, settings: NatsSettings, source: Source,
                 horns: HornSource | None = None,
                 archived: ArchiveSource | None = None) -> None:
        if not settings.url:
            raise ValueError("nats.url: not set")
        super().__init__()
        self.settings = settings
        self.source = source
        if not settings.signing_key:
            log.warning("nats: nats.signing_key is not set: messages go out unsigned, and "
                        "anyone who can publish to NATS can forge them (docs/scale.md)")
        self.horns = horns
        self.archived = archived
        #: match (or ``t.<tournament>``) -> the highest seq the store has (what the
        #: listener was told)
        self._want: OrderedDict[str, int] = OrderedDict()
        #: match -> the highest seq JetStream has acknowledged (unknown: ask the stream)
        self._sent: dict[str, int] = {}
        #: matches whose want exceeded the map's room: found again from the store's list
        self.overflowed = 0
        #: match -> (horns told, give up looking for their rows at): audit rows to publish
        self._horns: dict[str, tuple[int, float]] = {}
        #: match -> the horns' rows JetStream has acknowledged
        self._horns_sent: OrderedDict[str, set[str]] = OrderedDict()
        #: the archive flags JetStream has (None: not yet in this connection)
        self._archive_sent: frozenset[str] | None = None
        self._archive_checked = 0.0
        self._wake = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self.published = 0
        self.duplicates = 0
        #: last messages of the stream that were not the officials' (and their keys)
        self.ignored = 0
        self._ignored_keys: OrderedDict[str, None] = OrderedDict()

    # ---------------------------------------------------------------- listener
    def note(self, match_id: str, seq: int) -> None:
        """``match_id`` (or a tournament's key ``t.<id>``) has events up to ``seq`` in the
        store (0: a match's header alone): publish what JetStream lacks."""
        if seq <= self._want.get(match_id, -1) and match_id in self._want:
            return
        self._want[match_id] = max(seq, self._want.get(match_id, 0))
        self._want.move_to_end(match_id)
        while len(self._want) > self.settings.queue_limit:  # far beyond any real day
            old, _ = self._want.popitem(last=False)
            self._sent.pop(old, None)
            self.overflowed += 1
            log.warning("nats: more than %d matches waiting; match %s is caught up from "
                        "the store after the next restart", self.settings.queue_limit, old)
        self._wake.set()

    def horn_note(self, match_id: str, told: int = 1) -> None:
        """``told`` more horns of ``match_id`` sounded (0: look at its stored rows once):
        publish their audit rows once the store has them."""
        if self.horns is None:
            return
        was = self._horns.get(match_id, (0, 0.0))[0]
        self._horns[match_id] = (was + told, time.monotonic() + HORN_WAIT_S)
        self._wake.set()

    def on_state(self, match_id: str, seq: int, report: Mapping[str, Any]) -> None:
        self.note(match_id, seq)

    def on_event(self, match_id: str, seq: int, event: Mapping[str, Any]) -> None:
        self.note(match_id, seq)

    def on_horn(self, match_id: str, horn: Mapping[str, Any]) -> None:
        """Horns are not published (each edge sounds them to its own viewers); their audit
        rows are, once stored."""
        self.horn_note(match_id)

    # --------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        self._runner = asyncio.create_task(self._run(), name="chukker-nats")

    async def stop(self, drain_s: float = 1.0) -> None:
        """Publish what is waiting (up to ``drain_s``), then disconnect."""
        deadline = time.monotonic() + drain_s
        while self.connected and self.backlog() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner

    def backlog(self) -> int:
        """Matches with events JetStream has not acknowledged yet."""
        return sum(1 for m, s in self._want.items() if self._sent.get(m, -2) < s)

    def status(self) -> dict[str, Any]:
        return {"server": display(self.settings.url or ""), "stream": self.settings.stream,
                "connected": self.connected, "backlog": self.backlog(),
                "published": self.published, "error": self.last_error}

    # --------------------------------------------------------------- publisher
    async def _session(self, js: JetStreamContext) -> None:
        self.connected = True
        self._sent.clear()  # what was in flight is asked of the stream again
        self._archive_sent = None
        log.info("nats: connected to %s", display(self.settings.url or ""))
        await self._pump(js)

    async def _pump(self, js: JetStreamContext) -> None:
        while True:
            if self._lost.is_set():
                raise ConnectionError("connection lost")
            await self._archive(js)
            todo = [m for m, s in self._want.items() if self._sent.get(m, -2) < s]
            for key in todo:
                await self._catch_up(js, key)
            for match_id in list(self._horns):
                await self._horns_up(js, match_id)
            if todo:
                continue
            # nothing new: wait to be told (horn rows not stored yet: look again soon)
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.25 if self._horns else ARCHIVE_CHECK_S):
                    await self._wake.wait()

    async def _publish(self, js: JetStreamContext, subj: str, body: bytes, mid: str,
                       seq: int) -> None:
        ack = await js.publish(subj, body, stream=self.settings.stream, headers=headers_for(
            self.settings.signing_key, subj, seq, body, mid))
        if ack.duplicate:
            self.duplicates += 1
        self.published += 1

    async def _last_in_stream(self, js: JetStreamContext, key: str) -> int:
        """The seq of the last message JetStream holds for ``key`` (-1: none), if the
        officials signed it; a message they did not sign (or a seq beyond the store's) is
        logged once and ignored: everything is published again from the store (JetStream
        drops what it has by its id, an edge skips what it has by its seq)."""
        subj = subject(self.settings.prefix, key)
        try:
            msg = await js.get_last_msg(self.settings.stream, subj)
        except nats.js.errors.NotFoundError:
            return -1
        data = msg.data or b""
        try:
            seq = verified_seq(self.settings.signing_key, subj, msg.headers, data)
            said = decode(data)["seq"]
            if said != seq:
                raise ValueError(f"{SEQ_HEADER} {seq} but seq {said} in the body")
            if seq > self._want.get(key, -1):
                raise ValueError(f"{SEQ_HEADER} {seq} beyond the store's")
        except (ValueError, KeyError, TypeError, RecursionError) as e:
            self.ignored += 1
            if key not in self._ignored_keys:
                self._ignored_keys[key] = None
                while len(self._ignored_keys) > self.settings.queue_limit:
                    self._ignored_keys.popitem(last=False)
                log.warning("nats: %s: the stream's last message is not the officials' (%s): "
                            "ignored, publishing from the store's start", key, e)
            return -1
        return seq

    async def _catch_up(self, js: JetStreamContext, key: str) -> None:
        sent = self._sent.get(key)
        if sent is None:
            sent = self._sent[key] = await self._last_in_stream(js, key)
        want = self._want.get(key, -1)
        if sent >= want:
            return
        msgs = await self.source(key, sent)
        if msgs is None:  # the match is gone (never stored): nothing to publish
            self._want.pop(key, None)
            return
        subj = subject(self.settings.prefix, key)
        tournament = key.startswith(TOURNAMENT_PREFIX)
        for seq, body in msgs:
            if seq <= sent:
                continue
            if tournament and seq > want:
                # not yet: the headers of the live matches it makes go first (noted
                # before it), so that an edge has them when it folds the event
                self._wake.set()
                return
            await self._publish(js, subj, body, msg_id(key, seq), seq)
            sent = self._sent[key] = seq
        if sent < want:  # the store had less than the listener was told: never more
            log.warning("nats: %s: the store has events up to %d, told %d", key, sent, want)
            self._want[key] = sent

    async def _horns_up(self, js: JetStreamContext, match_id: str) -> None:
        """Publish the audit rows of ``match_id`` JetStream lacks."""
        assert self.horns is not None
        told, until = self._horns[match_id]
        sent = self._horns_sent.setdefault(match_id, set())
        self._horns_sent.move_to_end(match_id)
        while len(self._horns_sent) > self.settings.queue_limit:
            self._horns_sent.popitem(last=False)
        rows = await self.horns(match_id)
        for ident, body in rows:
            if ident in sent:
                continue
            await self._publish(js, audit_subject(self.settings.prefix, match_id), body,
                                f"h.{match_id}.{ident}", 0)
            sent.add(ident)
        if self._horns.get(match_id) == (told, until) and (
                len(rows) >= told or time.monotonic() > until):
            del self._horns[match_id]

    async def _archive_in_stream(self, js: JetStreamContext) -> frozenset[str] | None:
        """The archive flags of the stream's last archive message (none: empty)."""
        try:
            msg = await js.get_last_msg(self.settings.stream,
                                        archive_subject(self.settings.prefix))
        except nats.js.errors.NotFoundError:
            return frozenset()
        try:
            verified_seq(self.settings.signing_key, archive_subject(self.settings.prefix),
                         msg.headers, msg.data or b"")
            got = decode(msg.data or b"{}")
            ids = got["archived"]
            if got["kind"] != "archive" or not isinstance(ids, list):
                raise ValueError("not an archive message")
            return frozenset(str(x) for x in ids)
        except (ValueError, KeyError, TypeError, RecursionError) as e:
            log.warning("nats: the stream's last archive message is not the officials' (%s): "
                        "publishing the flags again", e)
            return None

    async def _archive(self, js: JetStreamContext) -> None:
        """Every :data:`ARCHIVE_CHECK_S`: publish the archive flags if they changed."""
        if self.archived is None or \
                time.monotonic() - self._archive_checked < ARCHIVE_CHECK_S:
            return
        self._archive_checked = time.monotonic()
        now = frozenset(await self.archived())
        if self._archive_sent is None:
            self._archive_sent = await self._archive_in_stream(js)
        if now == self._archive_sent:
            return
        at_ms = int(time.time() * 1000)
        await self._publish(js, archive_subject(self.settings.prefix),
                            archive_body(list(now), at_ms), f"a.{at_ms}", 0)
        self._archive_sent = now
