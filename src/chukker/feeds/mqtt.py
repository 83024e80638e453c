"""The MQTT feed: a listener on the live service that publishes to a broker (aiomqtt).

Topics (payloads JSON, times epoch ms as ``/api/time``; :mod:`chukker.feeds.payloads`):

* ``<prefix>/match/<id>/state``: retained, QoS 1, on every change and every
  ``tick_s`` while a clock runs;
* ``<prefix>/match/<id>/event``: QoS 1, every stored event (undos too) with its ``seq``;
* ``<prefix>/match/<id>/horn``: QoS 1, ``{kind, period, at}``;
* ``<prefix>/arena/<slug>/state`` and ``/horn``: the arena's current match;
* ``<prefix>/server/<server name>/online``: retained ``1``, and ``0`` (the will) when
  the server goes away. The name is ``mqtt.server_name`` or a random one, never the
  client identifier: a client that knew the identifier could take the server's
  session over (the broker drops the older of two connections with one identifier);
* the horn relays' own topics (:mod:`chukker.feeds.relays`).

The listener methods run on the event loop and only queue (:class:`Outbox`);
one task publishes, reconnecting with exponential backoff (0.2 s to 5 s, with
jitter) and publishing every retained state again after each reconnect. A
horn is claimed first (:mod:`chukker.feeds.claims`): only the server that wins
the claim publishes it and drives the relays.

The client speaks MQTT 5, so a publish the broker refuses is seen: the broker's
PUBACK carries a reason code of 0x80 or more (Mosquitto: 0x87 *Not authorized* when
its ACL denies the topic). aiomqtt awaits the PUBACK but drops its code, so the feed
reads it from paho's ``on_publish`` (:meth:`MqttFeed._watch_acks`). A refused message
is not counted as published: it is counted as ``refused`` (``status()``, the
``chukker_mqtt_dropped_total{reason="refused"}`` counter), its topic and reason are
kept, and a warning is logged once per topic; a refused relay command never sounds
later. (An MQTT 3.1.1 PUBACK has no reason code: Mosquitto then acknowledges a denied
publish and drops it in silence, which no client can tell.)

A session taken over (the broker's DISCONNECT with
reason code 0x8E, or :data:`TAKEOVER_DROPS` connections that each lived less
than :data:`TAKEOVER_SHORT_S` within :data:`TAKEOVER_WINDOW_S`) is counted
(``chukker_mqtt_session_taken_over_total``), said in :meth:`MqttFeed.status`
(the officials' ``/readyz``) and logged; the next connection uses a fresh random
identifier, so the server has its session back at once and the relays sound.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import secrets
import ssl
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

import aiomqtt
import paho.mqtt.client as paho

from chukker.config import HornSettings, MqttSettings
from chukker.feeds import metrics, payloads, relays
from chukker.feeds.backoff import Backoff, failure
from chukker.feeds.claims import HornClaims, LocalClaims
from chukker.feeds.outbox import Kind, Message, Outbox

log = logging.getLogger("chukker.feeds")

#: messages handed to the broker before its acknowledgements are awaited
WINDOW = 16
#: seconds to wait for the broker's acknowledgement of one message
ACK_TIMEOUT_S = 5.0
#: turns of the once-a-second states (each match has its own)
TICK_SLOTS = 10
#: matches whose last report is kept (for the ticks and the arena topics)
MATCHES_KEPT = 5000
#: MQTT 5's DISCONNECT reason code "Session taken over"
SESSION_TAKEN_OVER = 0x8E
#: a connection that lived less than this, lost ...
TAKEOVER_SHORT_S = 5.0
#: ... this many times ...
TAKEOVER_DROPS = 3
#: ... within this many seconds, is taken for a session taken over (MQTT 3.1.1 brokers
#: send no reason code)
TAKEOVER_WINDOW_S = 60.0

HeaderOf = Callable[[str], Mapping[str, Any] | None]

#: the packet id paho gave the publish this task made last (read after its PUBACK)
_MID: contextvars.ContextVar[int] = contextvars.ContextVar("chukker_mqtt_mid")


def _dumps(v: Any) -> bytes:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


class Broker:
    """Where to connect, from the settings (``mqtt://user:pass@host:port``).

    >>> b = Broker.from_settings(MqttSettings(url="mqtts://ann:s%40cret@broker.club:8883"))
    >>> b.host, b.port, b.user, b.password, b.tls, b.display
    ('broker.club', 8883, 'ann', 's@cret', True, 'mqtts://broker.club:8883')
    """

    def __init__(self, host: str, port: int, user: str | None, password: str | None,
                 tls: bool, ca: str | None) -> None:
        self.host, self.port, self.user, self.password, self.tls, self.ca = (
            host, port, user, password, tls, ca)

    @classmethod
    def from_settings(cls, s: MqttSettings) -> Broker:
        if not s.url:
            raise ValueError("mqtt.url: not set")
        u = urlsplit(s.url)
        tls = u.scheme == "mqtts"
        return cls(u.hostname or "127.0.0.1", u.port or (8883 if tls else 1883),
                   s.user or (unquote(u.username) if u.username else None),
                   s.password or (unquote(u.password) if u.password else None), tls, s.tls_ca)

    @property
    def display(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"

    def tls_context(self) -> ssl.SSLContext | None:
        return ssl.create_default_context(cafile=self.ca) if self.tls else None


class MqttFeed:
    """A :class:`chukker.live.Listener` publishing the matches to an MQTT broker.

    ``header_of(match_id)`` gives a match's header (its teams' names); ``claims``
    decides which server sounds a horn (default: this process alone); ``now_ms``
    is the wall clock in epoch ms (the live service's clock).
    """

    def __init__(self, mqtt: MqttSettings, horn: HornSettings | None = None, *,
                 header_of: HeaderOf | None = None, claims: HornClaims | None = None,
                 claims_block: bool = False, now_ms: Callable[[], int] = _wall_ms) -> None:
        self.settings = mqtt
        self.horn = horn or HornSettings()
        self.broker = Broker.from_settings(mqtt)
        self.prefix = mqtt.prefix.rstrip("/")
        self.client_id = mqtt.client_id or f"chukker-{secrets.token_hex(8)}"
        #: the identifier of the current session: the client id until a session is
        #: taken over, then a fresh random one (never published)
        self.session_id = self.client_id
        #: what the online topic names the server by: never the client identifier
        self.server_name = mqtt.server_name or f"server-{secrets.token_hex(6)}"
        #: sessions taken over so far, and when the last was (epoch ms)
        self.taken_over = 0
        self.last_taken_over_ms: int | None = None
        self._short_drops: list[float] = []
        self.header_of = header_of or (lambda _mid: None)
        self.claims = claims or LocalClaims()
        #: the claims ask a database: in a worker thread, not on the event loop
        self.claims_block = claims_block
        self.now_ms = now_ms
        self.outbox = Outbox(mqtt.queue_limit)
        self.connected = False
        self.connections = 0
        self.published = 0
        #: messages the broker acknowledged with a refusal (MQTT 5 reason code >= 0x80),
        #: and the reason of the last refusal by topic
        self.refused = 0
        self.refused_topics: dict[str, str] = {}
        #: paho's packet id -> the refusal in its PUBACK, until its publisher reads it
        self._refusals: dict[int, str] = {}
        self.last_error: str | None = None
        #: (horn instant, broker's ack) epoch ms of each relay command that sounded
        self.relay_latency: list[tuple[int, int]] = []
        #: the last report and the header of each match heard of (the newest MATCHES_KEPT)
        self._reports: OrderedDict[str, Mapping[str, Any]] = OrderedDict()
        self._headers: dict[str, Mapping[str, Any]] = {}
        #: each match's start (epoch ms), for the events' ``at_ms``
        self._start: dict[str, int] = {}
        self._running: set[str] = set()
        self._arena_of: dict[str, str] = {}
        self._arena_now: dict[str, str] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: relay commands waiting for their instant (Tasmota's OFF), by timer
        self._timers: dict[asyncio.TimerHandle, Message] = {}
        self._runner: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.online_topic = f"{self.prefix}/server/{self.server_name}/online"
        #: while connected: sends the queued relay commands at once
        self._relays_now: Callable[[], None] | None = None

    # ------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._runner = asyncio.create_task(self._run(), name="chukker-mqtt")
        self._ticker = asyncio.create_task(self._tick(), name="chukker-mqtt-tick")

    async def stop(self, drain_s: float = 1.0) -> None:
        """Publish what is queued (up to ``drain_s``), then disconnect."""
        if self._ticker is not None:
            self._ticker.cancel()
        for h, msg in list(self._timers.items()):  # a horn never stays on: its OFF goes now
            h.cancel()
            self.outbox.put(msg)
        self._timers.clear()
        if self.connected:  # a clean disconnect sends no will: say it ourselves
            self.outbox.put(Message(Kind.EVENT, self.online_topic, b"0", retain=True))
        deadline = time.monotonic() + drain_s
        while self.connected and len(self.outbox) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        for t in list(self._tasks):
            t.cancel()
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        self.claims.close()

    def status(self) -> dict[str, Any]:
        """For ``/readyz``: connected or not (the server stays ready either way)."""
        return {"broker": self.broker.display, "connected": self.connected,
                "queue": len(self.outbox), "published": self.published,
                "refused": self.refused, "refused_topics": dict(self.refused_topics),
                "dropped": {k.value: v for k, v in self.outbox.dropped.items()},
                "relays": len(self.horn.relays), "error": self.last_error,
                "session_taken_over": self.taken_over,
                "last_taken_over_ms": self.last_taken_over_ms}

    # ---------------------------------------------------------------- arenas
    def assign_arena(self, arena: str, match_id: str | None,
                     report: Mapping[str, Any] | None = None) -> None:
        """``match_id`` is now the arena's current match (tournaments); its state (the
        last heard, else ``report``) is sent on the arena's topic at once."""
        old = self._arena_now.get(arena)
        if match_id is None:
            self._arena_now.pop(arena, None)
            return
        self._arena_of[match_id] = arena
        if old == match_id:
            return
        self._arena_now[arena] = match_id
        if match_id not in self._reports and report is not None:
            self._reports[match_id] = report
        if match_id in self._reports:
            self._queue_state(match_id, arena_only=True)

    def map_arena(self, match_id: str, arena: str) -> None:
        """``match_id`` is played on ``arena`` (its relays sound for it; once it is under
        way with no other match of the arena under way, the arena's topics follow it)."""
        self._arena_of[match_id] = arena

    def arena_of(self, match_id: str) -> str | None:
        return self._arena_of.get(match_id)

    # -------------------------------------------------------------- listener
    def on_state(self, match_id: str, seq: int, report: Mapping[str, Any]) -> None:
        if seq > 0 and report.get("server_time") is not None:  # server_time is start + at
            self._start[match_id] = int(report["server_time"]) - round(
                float(report.get("at") or 0) * 1000)
        self._reports[match_id] = report
        self._reports.move_to_end(match_id)
        if len(self._reports) > MATCHES_KEPT:
            old, _ = self._reports.popitem(last=False)
            self._headers.pop(old, None)
            self._start.pop(old, None)
            self._running.discard(old)
        clock = report.get("clock") or {}
        if clock.get("running") or (report.get("status") == "interval"
                                    and report.get("interval")):
            self._running.add(match_id)
        else:
            self._running.discard(match_id)
        arena = self._arena_of.get(match_id)
        if arena is not None and self._arena_now.get(arena) != match_id and \
                report.get("status") not in ("pre_match", "final", None):
            cur = self._reports.get(self._arena_now.get(arena) or "")
            if cur is None or cur.get("status") in ("pre_match", "final"):
                self._arena_now[arena] = match_id  # the arena's match under way
        self._queue_state(match_id)

    def on_event(self, match_id: str, seq: int, event: Mapping[str, Any]) -> None:
        if seq == 1 or match_id not in self._start:  # a first guess; the state after it
            self._start[match_id] = self.now_ms() - round(float(event.get("at", 0)) * 1000)

        def build() -> bytes:  # when sent: by then the state after the event has come
            return _dumps(payloads.event_payload(match_id, seq, event,
                                                 self._start.get(match_id)))

        self.outbox.put(Message(Kind.EVENT, payloads.topic_event(self.prefix, match_id),
                                build=build))

    def on_horn(self, match_id: str, horn: Mapping[str, Any]) -> None:
        if not self.claims_block:
            self._sound(match_id, horn, self.claims.claim(match_id, str(horn.get("kind")),
                                                          int(horn["at"])))
            return
        task = asyncio.get_running_loop().create_task(self._claim_then_sound(match_id, horn))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _claim_then_sound(self, match_id: str, horn: Mapping[str, Any]) -> None:
        won = await asyncio.to_thread(self.claims.claim, match_id, str(horn.get("kind")),
                                      int(horn["at"]))
        self._sound(match_id, horn, won)

    def _sound(self, match_id: str, horn: Mapping[str, Any], won: bool) -> None:
        if not won:
            return
        body = _dumps(payloads.horn_payload(match_id, horn))
        arena = self._arena_of.get(match_id)
        at = int(horn["at"])
        for relay in self.horn.relays:
            if not relays.serves(relay, arena):
                continue
            first: Message | None = None
            for cmd in relays.commands(relay, horn, self.server_name):
                msg = Message(Kind.RELAY, cmd.topic, cmd.payload, horn_at=at, sounds=cmd.sounds)
                if first is None:
                    first = msg
                    self.outbox.put(msg)
                else:  # the OFF: pulse_ms after the ON goes out, whenever that is
                    first.then = (cmd.delay_ms, msg)
        if self._relays_now is not None:
            self._relays_now()
        self.outbox.put(Message(Kind.HORN, payloads.topic_horn(self.prefix, match_id), body))
        if arena is not None and self._arena_now.get(arena) == match_id:
            self.outbox.put(Message(Kind.HORN, payloads.topic_arena(self.prefix, arena, "horn"),
                                    body))

    def _follow(self, msg: Message, now: bool = False) -> None:
        """Queue what follows ``msg`` (its ``then``): at once, or after its delay."""
        if msg.then is None:
            return
        delay_ms, nxt = msg.then
        msg.then = None
        if now:
            self.outbox.put(nxt)
        else:
            self._later(delay_ms / 1000, nxt)

    def _later(self, delay: float, msg: Message) -> None:
        loop = self._loop or asyncio.get_running_loop()

        def fire() -> None:
            self._timers.pop(handle, None)
            self.outbox.put(msg)
            if self._relays_now is not None:
                self._relays_now()

        handle = loop.call_later(delay, fire)
        self._timers[handle] = msg

    # ---------------------------------------------------------------- states
    def _header(self, match_id: str) -> Mapping[str, Any]:
        h = self._headers.get(match_id)
        if h is None:
            try:
                h = self.header_of(match_id) or {}
            except Exception:  # noqa: BLE001 - unknown match: state goes out, unnamed
                h = {}
            if h:
                self._headers[match_id] = h
        return h

    def _queue_state(self, match_id: str, arena_only: bool = False) -> None:
        report = self._reports[match_id]
        header = self._header(match_id)
        now = self.now_ms

        def build() -> bytes:
            return _dumps(payloads.public_state(header, report, now()))

        if not arena_only:
            self.outbox.put_state(Message(Kind.STATE, payloads.topic_state(self.prefix, match_id),
                                          retain=True, build=build))
        arena = self._arena_of.get(match_id)
        if arena is not None and self._arena_now.get(arena) == match_id:
            self.outbox.put_state(Message(Kind.STATE,
                                          payloads.topic_arena(self.prefix, arena, "state"),
                                          retain=True, build=build))

    async def _tick(self) -> None:
        """A state every ``tick_s`` for each match whose clock (or interval) runs, the
        matches spread over :data:`TICK_SLOTS` turns (a hundred states at once would
        queue behind a key press)."""
        turn = 0
        while True:
            await asyncio.sleep(self.settings.tick_s / TICK_SLOTS)
            turn = (turn + 1) % TICK_SLOTS
            for mid in list(self._running):
                if zlib.crc32(mid.encode()) % TICK_SLOTS == turn and mid in self._reports:
                    self._queue_state(mid)

    # ------------------------------------------------------------- publisher
    def _client(self) -> aiomqtt.Client:
        b = self.broker
        client = aiomqtt.Client(
            b.host, b.port, username=b.user, password=b.password, identifier=self.session_id,
            tls_context=b.tls_context(), keepalive=15, timeout=ACK_TIMEOUT_S,
            will=aiomqtt.Will(self.online_topic, b"0", qos=1, retain=True),
            max_inflight_messages=WINDOW, protocol=aiomqtt.ProtocolVersion.V5,
            clean_start=True,
        )
        client.pending_calls_threshold = 2 * WINDOW  # WINDOW awaited acks is the design
        self._watch_acks(client)
        return client

    def _watch_acks(self, client: aiomqtt.Client) -> None:
        """Keep the refusals of the broker's PUBACKs: aiomqtt's ``publish`` returns on
        any PUBACK and drops its reason code. paho's ``publish`` is wrapped to note the
        packet id in the publishing task's context (:data:`_MID`), its ``on_publish`` to
        keep each failing reason code by packet id, for :meth:`_send` to read."""
        inner = client._client
        on_publish: Any = inner.on_publish  # aiomqtt's: paho's VERSION2 signature
        publish = inner.publish
        refusals = self._refusals = {}

        def noted_publish(*args: Any, **kwargs: Any) -> paho.MQTTMessageInfo:
            info = publish(*args, **kwargs)
            _MID.set(info.mid)
            return info

        def heard(c: Any, userdata: Any, mid: int, reason_code: Any, properties: Any) -> None:
            if getattr(reason_code, "is_failure", False):
                refusals[mid] = f"{reason_code} (0x{int(reason_code.value):02X})"
                for k in list(refusals)[: max(0, len(refusals) - 4 * WINDOW)]:
                    refusals.pop(k, None)  # never read: their publisher is gone
            if on_publish is not None:
                on_publish(c, userdata, mid, reason_code, properties)

        inner.publish = noted_publish  # type: ignore[method-assign]
        inner.on_publish = heard

    def _refused(self, msg: Message, why: str) -> None:
        """A message the broker acknowledged with a refusal: counted as refused, never
        as published, its topic and reason kept and logged once; a relay's command is
        not sent again (its follow-up, Tasmota's ``OFF``, goes at once)."""
        self.refused += 1
        if msg.topic not in self.refused_topics:
            log.warning("mqtt: %s refused the message on %s: %s (check the broker's ACL: "
                        "docs/feeds.md)", self.broker.display, msg.topic, why)
        self.refused_topics[msg.topic] = why
        while len(self.refused_topics) > 64:
            self.refused_topics.pop(next(iter(self.refused_topics)))
        self.outbox.drop(msg, "refused")
        if msg.kind is Kind.RELAY:
            self._follow(msg, now=True)

    async def _run(self) -> None:
        backoff = Backoff()
        while True:
            since: float | None = None
            try:
                async with self._client() as client:
                    since = time.monotonic()
                    self.connected = True
                    self.last_error = None
                    metrics.CONNECTED.set(1)
                    if self.connections:
                        metrics.RECONNECTS.inc()
                    self.connections += 1
                    backoff.reset()
                    n = self.outbox.republish()
                    log.info("mqtt: connected to %s; %d retained states to publish again",
                             self.broker.display, n)
                    await client.publish(self.online_topic, b"1", qos=1, retain=True)
                    await self._pump(client)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - broker gone or refusing: retry later
                self.last_error = failure(e)
                if self.connected:
                    log.warning("mqtt: connection to %s lost: %s", self.broker.display,
                                self.last_error)
                if since is not None and self._taken_over(e, time.monotonic() - since):
                    backoff.reset(backoff.low / 2)  # our own session back at once
            finally:
                self.connected = False
                metrics.CONNECTED.set(0)
            self._drop_late_relays()
            await backoff.wait()

    def _taken_over(self, e: BaseException, lived_s: float) -> bool:
        """Whether a lost connection was a session taken over by another client with our
        identifier (reason code 0x8E, or repeated short connections); if so, count it,
        say it, and take a fresh identifier for the next connection."""
        rc = getattr(e, "rc", None)
        code = getattr(rc, "value", rc)
        now = time.monotonic()
        taken = code == SESSION_TAKEN_OVER
        if not taken and lived_s < TAKEOVER_SHORT_S:
            self._short_drops = [t for t in self._short_drops if now - t < TAKEOVER_WINDOW_S]
            self._short_drops.append(now)
            taken = len(self._short_drops) >= TAKEOVER_DROPS
        if not taken:
            return False
        self._short_drops.clear()
        self.taken_over += 1
        self.last_taken_over_ms = self.now_ms()
        metrics.TAKEN_OVER.inc()
        self.session_id = f"{self.client_id[:48]}-{secrets.token_hex(6)}"
        log.warning("mqtt: the session on %s was taken over by another client with the same "
                    "identifier; reconnecting with a new one (see docs/feeds.md for the "
                    "broker's ACL)", self.broker.display)
        return True

    def _drop_late_relays(self) -> None:
        """A horn that could not sound in time is not sounded later (the ``OFF`` still goes)."""
        now = self.now_ms()
        for msg in self.outbox.relays():
            if msg.sounds and msg.horn_at is not None and \
                    now - msg.horn_at > self.horn.relay_max_late_ms:
                self.outbox.remove_relay(msg)
                self.outbox.drop(msg, "too_late")
                self._follow(msg, now=True)

    async def _pump(self, client: aiomqtt.Client) -> None:
        inflight: dict[asyncio.Task[None], Message] = {}
        started: set[int] = set()
        broken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        gone: asyncio.Future[Any] = client._disconnected  # aiomqtt's own signal

        def launch(msg: Message) -> None:
            if msg.kind is Kind.RELAY and msg.sounds and msg.horn_at is not None and \
                    self.now_ms() - msg.horn_at > self.horn.relay_max_late_ms:
                self.outbox.drop(msg, "too_late")
                self._follow(msg, now=True)
                return
            t = asyncio.create_task(self._send(client, msg, broken, started))
            inflight[t] = msg
            t.add_done_callback(lambda done: inflight.pop(done, None))

        def relays_now() -> None:
            """Relay commands go out from the listener's call itself (not on the pump's
            next turn): a horn is due on the millisecond."""
            while not broken.done() and not gone.done():
                msg = self.outbox.pop_relay()
                if msg is None:
                    return
                launch(msg)

        self._relays_now = relays_now
        try:
            while True:
                if broken.done() or gone.done():
                    raise aiomqtt.MqttError("connection lost")
                msg = self.outbox.pop()
                if msg is None:
                    await self.outbox.wait(0.5)
                    continue
                launch(msg)
                if len(inflight) >= WINDOW:
                    await asyncio.wait(list(inflight), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._relays_now = None
            left = dict(inflight)
            for t in left:
                t.cancel()
            if left:
                await asyncio.gather(*left, return_exceptions=True)
            for msg in left.values():
                if id(msg) not in started:  # cancelled before it was handed over
                    self._failed(msg, maybe_delivered=False)

    async def _send(self, client: aiomqtt.Client, msg: Message,
                    broken: asyncio.Future[None], started: set[int]) -> None:
        started.add(id(msg))
        handed = False
        acked = False
        why: str | None = None
        try:
            body = msg.body()
            handed = True
            await client.publish(msg.topic, body, qos=1, retain=msg.retain)
            acked = True
            mid = _MID.get(None)
            why = None if mid is None else self._refusals.pop(mid, None)
            if why is None:
                self._follow(msg)  # the OFF: pulse_ms after the broker has the ON
        except aiomqtt.MqttCodeError as e:
            handed = e.rc != paho.MQTT_ERR_NO_CONN  # NO_CONN: it never left this process
        except Exception:  # noqa: BLE001 - timed out, or lost with the connection
            pass
        finally:
            if not acked:
                self._failed(msg, maybe_delivered=handed)
                if not broken.done():
                    broken.set_result(None)
        if not acked:
            return
        if why is not None:
            self._refused(msg, why)
            return
        self.published += 1
        metrics.PUBLISHED.labels(msg.kind.value).inc()
        if msg.kind is Kind.RELAY and msg.sounds and msg.horn_at is not None:
            now = self.now_ms()
            self.relay_latency.append((msg.horn_at, now))
            del self.relay_latency[:-10_000]
            metrics.HORN_TO_RELAY.observe(max(0, now - msg.horn_at) / 1000)

    def _failed(self, msg: Message, maybe_delivered: bool) -> None:
        """A message the broker did not acknowledge: queued again, except a horn's
        relay command the broker may already have (a horn sounds at most once)."""
        msg.tries += 1
        if msg.kind is Kind.STATE:
            self.outbox.put_state(msg, again=True)
        elif msg.kind is Kind.RELAY and msg.sounds and maybe_delivered:
            self.outbox.drop(msg, "unconfirmed")
            self._follow(msg, now=True)
        else:
            self.outbox.put(msg, front=True)
