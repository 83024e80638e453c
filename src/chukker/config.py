"""Settings of a chukker server: one TOML file, environment variables, defaults.

Every setting has a key (``database``, ``limits.max_body_bytes``), a type, a
default, and an environment variable (``CHUKKER_`` and the key in capitals,
dots as ``_``; a few keys also answer to an older name). The file's path comes
from ``--config`` or ``CHUKKER_CONFIG``. Precedence, strongest first: the
command line, the environment, the file, the default. :func:`load` refuses a
bad value or an unknown key in the file with a :class:`ConfigError` naming the
key and where the value came from, so a server never starts half-configured.

No web framework is imported here: the settings are plain values.

>>> s = load(env={"CHUKKER_LIMITS_MAX_BODY_BYTES": "1024"}, file=None)
>>> s.limits.max_body_bytes, s.source("limits.max_body_bytes")
(1024, 'env CHUKKER_LIMITS_MAX_BODY_BYTES')
>>> load(env={"CHUKKER_SERVER_PORT": "http"}, file=None)
Traceback (most recent call last):
...
chukker.config.ConfigError: server.port (env CHUKKER_SERVER_PORT): not a whole number: 'http'
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

CONFIG_ENV = "CHUKKER_CONFIG"
ENV_PREFIX = "CHUKKER_"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class ConfigError(ValueError):
    """A setting is wrong: names the key, where its value came from, and why."""

    def __init__(self, key: str, where: str, reason: str) -> None:
        self.key = key
        self.where = where
        self.reason = reason
        super().__init__(f"{key} ({where}): {reason}" if where else f"{key}: {reason}")


class ConfigErrors(ConfigError):
    """Several settings are wrong: every one is reported (``errors``), one a line; the
    first gives ``key``, ``where`` and ``reason``.

    >>> e = ConfigErrors([ConfigError("a", "file s.toml", "unknown setting"),
    ...                   ConfigError("b", "file s.toml", "unknown setting")])
    >>> print(e)
    a (file s.toml): unknown setting
    b (file s.toml): unknown setting
    """

    def __init__(self, errors: list[ConfigError]) -> None:
        self.errors = errors
        first = errors[0]
        super().__init__(first.key, first.where, first.reason)
        self.args = ("\n".join(str(e) for e in errors),)


def _raise_all(errors: list[ConfigError]) -> None:
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigErrors(errors)


@dataclass(frozen=True, slots=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8000
    #: seconds between keep-alive comments on a live stream (proxies close idle streams)
    stream_keepalive_s: float = 15.0
    #: the officials' plane's port (issue 35: API, console, horns); 0: ``port`` + 1
    officials_port: int = 0
    #: processes of the public plane on ``port`` (pages, streams, exports, feeds);
    #: 0: one process serves both planes on ``port`` (a laptop, a test)
    public_workers: int = 1
    #: where the crowd reaches the public plane (``https://arena.example``), for the
    #: officials' plane's redirects; empty: the request's host on ``port``
    public_url: str = ""
    #: where the officials reach their plane, for the links ``serve`` prints and the
    #: public plane's redirects; empty: the request's host on the officials' port
    officials_url: str = ""
    #: the address the officials' port listens on (issue 41); empty: ``host`` when it is
    #: a loopback address, else 127.0.0.1 (the arena's private network, or the proxy)
    officials_host: str = ""

    @property
    def officials_address(self) -> str:
        """Where the officials' port listens: ``officials_host``, else ``host`` if it is
        loopback, else 127.0.0.1 (never the crowd's address unless asked for).

        >>> ServerSettings(host="0.0.0.0").officials_address
        '127.0.0.1'
        >>> ServerSettings(host="::1").officials_address
        '::1'
        >>> ServerSettings(host="0.0.0.0", officials_host="10.1.2.3").officials_address
        '10.1.2.3'
        """
        if self.officials_host:
            return self.officials_host
        try:
            loopback = ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            loopback = self.host == "localhost"
        return self.host if loopback else "127.0.0.1"

    @property
    def officials(self) -> int:
        """The officials' port: ``officials_port``, else ``port`` + 1.

        >>> ServerSettings(port=8000).officials, ServerSettings(officials_port=9000).officials
        (8001, 9000)
        """
        return self.officials_port or self.port + 1


@dataclass(frozen=True, slots=True)
class LimitSettings:
    #: largest request body accepted (bytes)
    max_body_bytes: int = 64 * 1024
    #: a client's posted ``at`` is accepted when no older than this (seconds)
    at_window_s: float = 60.0
    #: bad tokens from one address before answers slow down
    bad_tokens_free: int = 3
    #: bad tokens from one address before it is refused (429)
    bad_tokens_block: int = 30
    #: quiet seconds after which an address's bad tokens are forgotten
    bad_tokens_window_s: float = 600.0
    #: messages a slow live-stream client may have queued before it is dropped
    stream_queue: int = 512
    #: live streams in total (a twentieth kept for the matches' own screens) and per address
    max_streams: int = 16_000
    max_streams_per_address: int = 2000
    #: requests per second per address to a door anyone may call (a page, JSON, an
    #: export; ten seconds' worth at once); 0: no rate
    visitor_rate: float = 100.0
    #: seconds a client has to send a request's headers, then its body (slowloris)
    header_timeout_s: float = 10.0
    body_timeout_s: float = 10.0
    #: the officials' port (issue 41): an address's connections open at once and its
    #: requests per second (three seconds' worth at once) without a proven token
    officials_connections_per_address: int = 32
    officials_rate: float = 20.0


@dataclass(frozen=True, slots=True)
class LogSettings:
    #: ``json`` (one JSON object per line) or ``text``
    format: str = "json"
    level: str = "info"
    #: one line per HTTP request
    access: bool = True


@dataclass(frozen=True, slots=True)
class MetricsSettings:
    #: serve Prometheus metrics at ``/metrics``
    enabled: bool = True


@dataclass(frozen=True, slots=True)
class MqttSettings:
    """The MQTT feed (``chukker.feeds``): off while ``url`` is unset."""

    #: ``mqtt://host:1883`` or ``mqtts://host:8883`` (TLS); user and password may be in it
    url: str | None = None
    #: first level of every topic
    prefix: str = "chukker"
    #: the client identifier (unset: ``chukker-`` and a random suffix); never published
    client_id: str | None = None
    #: the name the online topic gives the server (unset: a random one)
    server_name: str | None = None
    user: str | None = None
    password: str | None = None
    #: CA bundle for mqtts:// (unset: the system's)
    tls_ca: str | None = None
    #: horn and event messages kept while the broker is away (then the oldest go)
    queue_limit: int = 10_000
    #: seconds between two state messages of a match whose clock runs
    tick_s: float = 1.0


@dataclass(frozen=True, slots=True)
class NatsSettings:
    """NATS JetStream (``chukker.feeds.nats``, ``chukker edge``): off while ``url`` is unset."""

    #: ``nats://host:4222`` (``tls://`` for TLS); user and password may be in it
    url: str | None = None
    #: the JetStream stream holding every match's header and events
    stream: str = "CHUKKER"
    #: first token of every subject (``<prefix>.match.<id>``)
    prefix: str = "chukker"
    #: the officials' server as the crowd can reach it (an edge's refusals name it)
    officials_url: str | None = None
    #: matches whose events wait in memory while NATS is away (then they come from the store)
    queue_limit: int = 10_000
    #: the shared secret the officials sign each message with (HMAC-SHA256) and the edges
    #: check it with; an edge refuses to start without it (docs/scale.md)
    signing_key: str | None = None
    #: NATS authentication: a user and password, a token, an nkey seed file or a creds file
    user: str | None = None
    password: str | None = None
    token: str | None = None
    nkey_seed: str | None = None
    creds: str | None = None
    #: TLS: the CA bundle checking the server, and this client's certificate and key
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    #: an edge refuses a message larger than this (bytes)
    max_message_bytes: int = 1 << 20


@dataclass(frozen=True, slots=True)
class RelaySettings:
    """One horn relay (``[[horn.relays]]``)."""

    #: ``tasmota``, ``shelly`` or ``topic``
    kind: str
    topic: str
    pulse_ms: int = 1500
    #: only the matches played on this arena (tournaments); ``None``: every match
    arena: str | None = None


@dataclass(frozen=True, slots=True)
class HornSettings:
    relays: tuple[RelaySettings, ...] = ()
    #: a relay command that could not go out for this long after its horn is dropped
    #: (a horn seconds late would mislead the players and umpires)
    relay_max_late_ms: int = 2000


@dataclass(frozen=True, slots=True)
class Settings:
    """The settings in force; ``sources`` says where each key's value came from."""

    #: SQLite file (relative to ``data_dir``) or ``postgresql://`` URL
    database: str = "chukker.sqlite3"
    #: PostgreSQL schema holding chukker's tables
    database_schema: str = "chukker"
    #: the rulebook's SQLite file (relative to ``data_dir``); unset: the rulebook's own
    #: default (the user's data folder)
    rules_database: str | None = None
    #: folder of the tournaments' files (relative to ``data_dir``)
    tournaments_dir: str = "chukker-tournaments"
    #: folder for the SQLite files and backups
    data_dir: str = "."
    #: the organiser's secret (creates matches and tournaments); unset: nobody can
    organiser_token: str | None = None
    #: the scraper's secret: ``/metrics`` answers only ``Authorization: Bearer <it>``;
    #: unset: nobody (a proxy on the same machine is still a visitor)
    metrics_token: str | None = None
    #: anyone may create matches (a club laptop at the arena); rate-limited per address
    open: bool = False
    #: addresses or networks of reverse proxies whose X-Forwarded-For/Forwarded is believed
    trusted_proxies: tuple[Network, ...] = ()
    #: the one forwarding header believed from them: ``x-forwarded-for`` or ``forwarded``
    proxy_header: str = "x-forwarded-for"
    #: languages offered on the pages
    languages: tuple[str, ...] = ("en", "es", "it")
    server: ServerSettings = field(default_factory=ServerSettings)
    limits: LimitSettings = field(default_factory=LimitSettings)
    log: LogSettings = field(default_factory=LogSettings)
    metrics: MetricsSettings = field(default_factory=MetricsSettings)
    mqtt: MqttSettings = field(default_factory=MqttSettings)
    horn: HornSettings = field(default_factory=HornSettings)
    nats: NatsSettings = field(default_factory=NatsSettings)
    #: the TOML file read, if any
    config_file: str | None = None
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")

    def get(self, key: str) -> Any:
        """The value of a dotted key.

        >>> Settings().get("server.port")
        8000
        """
        obj: Any = self
        for part in key.split("."):
            obj = getattr(obj, part)
        return obj

    def database_target(self) -> str:
        """The store to open: a PostgreSQL URL as is, a SQLite path under ``data_dir``.

        >>> Settings(data_dir="/srv/c").database_target()
        '/srv/c/chukker.sqlite3'
        >>> Settings(database="postgresql://u@h/db").database_target()
        'postgresql://u@h/db'
        """
        return _under(self.data_dir, self.database)

    def rules_database_target(self) -> str | None:
        return None if self.rules_database is None else _under(self.data_dir, self.rules_database)

    def tournaments_target(self) -> str:
        return _under(self.data_dir, self.tournaments_dir)


def _under(folder: str, target: str) -> str:
    if target.startswith(("postgresql://", "postgres://", "sqlite:///")) or os.path.isabs(target):
        return target
    if folder in ("", "."):
        return target
    return os.path.join(folder, target)


# ----------------------------------------------------------------- parsing

Parser = Callable[[Any], Any]


def _int(lo: int, hi: int) -> Parser:
    def parse(v: Any) -> int:
        if isinstance(v, bool):
            raise ValueError(f"not a whole number: {v!r}")
        if isinstance(v, str):
            if not re.fullmatch(r"\s*[+-]?\d+\s*", v):
                raise ValueError(f"not a whole number: {v!r}")
            v = int(v)
        if not isinstance(v, int):
            raise ValueError(f"not a whole number: {v!r}")
        if not lo <= v <= hi:
            raise ValueError(f"{v} is out of range {lo}..{hi}")
        return v
    return parse


def _float(lo: float, hi: float) -> Parser:
    def parse(v: Any) -> float:
        if isinstance(v, bool):
            raise ValueError(f"not a number: {v!r}")
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise ValueError(f"not a number: {v!r}") from None
        if not isinstance(v, int | float) or v != v:
            raise ValueError(f"not a number: {v!r}")
        if not lo <= v <= hi:
            raise ValueError(f"{v} is out of range {lo}..{hi}")
        return float(v)
    return parse


def _bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(v, str) and v.strip().lower() in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not true or false: {v!r}")


def _text(pattern: str | None = None, what: str = "", max_len: int = 4096) -> Parser:
    def parse(v: Any) -> str:
        if not isinstance(v, str):
            raise ValueError(f"not text: {v!r}")
        if len(v) > max_len:
            raise ValueError(f"longer than {max_len} characters")
        if pattern is not None and not re.fullmatch(pattern, v):
            raise ValueError(f"{v!r} is not {what}")
        return v
    return parse


def _choice(*allowed: str) -> Parser:
    def parse(v: Any) -> str:
        if not isinstance(v, str) or v.strip().lower() not in allowed:
            raise ValueError(f"{v!r} is not one of {', '.join(allowed)}")
        return v.strip().lower()
    return parse


def _list(v: Any) -> list[Any]:
    if isinstance(v, str):
        return [x.strip() for x in v.split(",") if x.strip()]
    if isinstance(v, list | tuple):
        return list(v)
    raise ValueError(f"not a list: {v!r}")


def _networks(v: Any) -> tuple[Network, ...]:
    out = []
    for item in _list(v):
        if not isinstance(item, str):
            raise ValueError(f"not an address or network: {item!r}")
        try:
            out.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an address or network: {item!r}") from None
    return tuple(out)


def known_languages() -> tuple[str, ...]:
    """English and every language with a folder of catalogs in the package.

    >>> "en" in known_languages() and "es" in known_languages()
    True
    """
    locales = Path(__file__).parent / "web" / "locales"
    found = {p.name for p in locales.iterdir() if p.is_dir()} if locales.is_dir() else set()
    return tuple(sorted({"en", *found}))


def _languages(v: Any) -> tuple[str, ...]:
    items = _list(v)
    if not items:
        raise ValueError("name at least one language")
    known = known_languages()
    out: list[str] = []
    for item in items:
        code = str(item).strip().lower()
        if code not in known:
            raise ValueError(f"{item!r} is not one of {', '.join(known)}")
        if code not in out:
            out.append(code)
    return tuple(out)


def _token(v: Any) -> str | None:
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        raise ValueError("not text")
    if len(v) < 16:
        raise ValueError("too short: use at least 16 characters "
                         "(python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    if not re.fullmatch(r"[\x21-\x7e]+", v):
        raise ValueError("use printable ASCII without spaces")
    return v


def _signing_key(v: Any) -> str | None:
    """At least 32 printable characters (a shared secret both sides hold)."""
    if v is None or v == "":
        return None
    if not isinstance(v, str) or not re.fullmatch(r"[\x21-\x7e]{32,1024}", v):
        raise ValueError("use 32 to 1024 printable ASCII characters without spaces "
                         "(python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return v


def _optional(parse: Parser) -> Parser:
    def opt(v: Any) -> Any:
        return None if v is None or v == "" else parse(v)
    return opt


def _database(v: Any) -> str:
    s = str(_text(max_len=4096)(v)).strip()
    if not s:
        raise ValueError("empty")
    if "://" in s and not s.startswith(("postgresql://", "postgres://", "sqlite:///")):
        raise ValueError(f"{s.split('://')[0]}:// is not supported; use a file path, "
                         "sqlite:///path or postgresql://")
    return s


def _mqtt_url(v: Any) -> str | None:
    if v is None or v == "":
        return None
    s = str(_text(max_len=2048)(v)).strip()
    from urllib.parse import urlsplit

    u = urlsplit(s)
    if u.scheme not in ("mqtt", "mqtts") or not u.hostname:
        raise ValueError(f"{hide_password(s)!r} is not mqtt://host[:port] or mqtts://host[:port]")
    try:
        u.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise ValueError(f"{hide_password(s)!r} has a bad port") from None
    return s


def _nats_url(v: Any) -> str | None:
    if v is None or v == "":
        return None
    s = str(_text(max_len=2048)(v)).strip()
    from urllib.parse import urlsplit

    u = urlsplit(s)
    if u.scheme not in ("nats", "tls") or not u.hostname:
        raise ValueError(f"{hide_password(s)!r} is not nats://host[:port] or tls://host[:port]")
    try:
        u.port  # noqa: B018 - raises on a bad port
    except ValueError:
        raise ValueError(f"{hide_password(s)!r} has a bad port") from None
    return s


def _http_url(v: Any) -> str | None:
    if v is None or v == "":
        return None
    s = str(_text(r"https?://[\x21-\x7e]{1,500}", "an http:// or https:// address")(v))
    return s.rstrip("/")


_TOPIC = r"[^#+\x00-\x1f]{1,200}"
RELAY_KINDS = ("tasmota", "shelly", "topic")


def _relays(v: Any) -> tuple[RelaySettings, ...]:
    """``[[horn.relays]]`` tables, or (environment) the same as a JSON list."""
    if isinstance(v, str):
        import json

        try:
            v = json.loads(v) if v.strip() else []
        except ValueError:
            raise ValueError("not a JSON list of relays "
                             '([{"kind": "tasmota", "topic": "arena1-horn"}])') from None
    if not isinstance(v, list):
        raise ValueError("not a list of relays")
    if len(v) > 64:
        raise ValueError("more than 64 relays")
    out = []
    for i, r in enumerate(v):
        if not isinstance(r, dict):
            raise ValueError(f"relay {i + 1}: not a table")
        unknown = set(r) - {"kind", "topic", "pulse_ms", "arena"}
        if unknown:
            raise ValueError(f"relay {i + 1}: unknown key {sorted(unknown)[0]!r}")
        try:
            kind = _choice(*RELAY_KINDS)(r.get("kind"))
            topic = _text(_TOPIC, "an MQTT topic without + or #")(r.get("topic"))
            pulse = _int(50, 60_000)(r.get("pulse_ms", 1500))
            arena = _optional(_text(max_len=60))(r.get("arena"))
        except ValueError as e:
            raise ValueError(f"relay {i + 1}: {e}") from None
        out.append(RelaySettings(kind, topic, pulse, arena))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Key:
    name: str
    parse: Parser
    help: str
    #: older environment variables also read (after the canonical one)
    aliases: tuple[str, ...] = ()
    secret: bool = False

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.replace(".", "_").upper()


KEYS: tuple[Key, ...] = (
    Key("database", _database, "SQLite file (under data_dir) or postgresql:// URL",
        aliases=("CHUKKER_DATABASE_URL",)),
    Key("database_schema", _text(r"[a-z_][a-z0-9_]{0,40}", "a schema name (a-z, 0-9, _)"),
        "PostgreSQL schema of chukker's tables"),
    Key("rules_database", _optional(_database), "the rulebook's SQLite file (under data_dir)",
        aliases=("CHUKKER_RULES_DB",)),
    Key("tournaments_dir", _text(max_len=4096), "folder of the tournaments (under data_dir)",
        aliases=("CHUKKER_TOURNAMENTS_DIR",)),
    Key("data_dir", _text(max_len=4096), "folder of the SQLite files"),
    Key("organiser_token", _token, "the organiser's secret (creating matches, tournaments)",
        secret=True),
    Key("metrics_token", _token, "the metrics scraper's secret (/metrics; unset: nobody)",
        secret=True),
    Key("open", _bool, "anyone may create matches (rate-limited per address)"),
    Key("trusted_proxies", _networks,
        "reverse proxies (addresses or networks) whose forwarding headers are believed"),
    Key("proxy_header", _choice("x-forwarded-for", "forwarded"),
        "the one forwarding header believed from the trusted proxies"),
    Key("languages", _languages, "languages offered on the pages"),
    Key("server.host", _text(max_len=255), "address to listen on"),
    Key("server.port", _int(1, 65535), "port to listen on"),
    Key("server.stream_keepalive_s", _float(1, 300), "seconds between keep-alive comments"),
    Key("server.officials_port", _int(0, 65535),
        "the officials' plane's port (API, console, horns); 0: port + 1"),
    Key("server.public_workers", _int(0, 64),
        "processes of the public plane on port; 0: one process serves both planes"),
    Key("server.public_url", _text(r"(https?://[A-Za-z0-9.:\[\]-]+/?)?",
                                   "http(s)://host[:port]", 300),
        "where the crowd reaches the public plane (redirects)"),
    Key("server.officials_url", _text(r"(https?://[A-Za-z0-9.:\[\]-]+/?)?",
                                      "http(s)://host[:port]", 300),
        "where the officials reach their plane (printed links, redirects)"),
    Key("server.officials_host", _text(r"[A-Za-z0-9.:_-]{0,255}", "a host name or address"),
        "address of the officials' port; empty: host if loopback, else 127.0.0.1"),
    Key("limits.max_body_bytes", _int(1024, 64 * 1024 * 1024), "largest request body"),
    Key("limits.at_window_s", _float(0, 3600), "oldest accepted client 'at' (seconds)",
        aliases=("CHUKKER_AT_WINDOW_S",)),
    Key("limits.bad_tokens_free", _int(0, 1000), "bad tokens before answers slow down"),
    Key("limits.bad_tokens_block", _int(1, 100_000), "bad tokens before an address is refused"),
    Key("limits.bad_tokens_window_s", _float(1, 86_400), "seconds that bad tokens are remembered"),
    Key("limits.stream_queue", _int(8, 1_000_000), "queued messages before a slow stream drops"),
    Key("limits.max_streams", _int(1, 10_000_000), "live streams in total",
        aliases=("CHUKKER_MAX_STREAMS",)),
    Key("limits.max_streams_per_address", _int(1, 10_000_000), "live streams per address",
        aliases=("CHUKKER_MAX_STREAMS_PER_ADDRESS",)),
    Key("limits.visitor_rate", _float(0, 1_000_000),
        "requests per second per address to a door anyone may call (0: no rate)",
        aliases=("CHUKKER_VISITOR_RATE",)),
    Key("limits.header_timeout_s", _float(0.1, 3600), "seconds to send the headers",
        aliases=("CHUKKER_HEADER_TIMEOUT_S",)),
    Key("limits.body_timeout_s", _float(0.1, 3600), "seconds to send the body",
        aliases=("CHUKKER_BODY_TIMEOUT_S",)),
    Key("limits.officials_connections_per_address", _int(1, 100_000),
        "officials' port: connections open at once per address without a token"),
    Key("limits.officials_rate", _float(0.1, 1_000_000),
        "officials' port: requests per second per address without a token"),
    Key("log.format", _choice("json", "text"), "json lines or text"),
    Key("log.level", _choice("debug", "info", "warning", "error"), "least severe level logged"),
    Key("log.access", _bool, "one line per HTTP request"),
    Key("metrics.enabled", _bool, "Prometheus metrics at /metrics"),
    Key("mqtt.url", _mqtt_url, "MQTT broker (mqtt:// or mqtts://); unset: no MQTT feed"),
    Key("mqtt.prefix", _text(r"[^#+\x00-\x1f/][^#+\x00-\x1f]{0,99}", "a topic prefix"),
        "first level of every MQTT topic"),
    Key("mqtt.client_id", _optional(_text(r"[\x21-\x7e]{1,64}", "printable ASCII")),
        "MQTT client identifier (never published)"),
    Key("mqtt.server_name", _optional(_text(r"[A-Za-z0-9_.-]{1,64}", "letters, digits, . _ -")),
        "the server's name in <prefix>/server/<name>/online"),
    Key("mqtt.user", _optional(_text(max_len=256)), "MQTT user name"),
    Key("mqtt.password", _optional(_text(max_len=256)), "MQTT password", secret=True),
    Key("mqtt.tls_ca", _optional(_text(max_len=4096)), "CA bundle for mqtts://"),
    Key("mqtt.queue_limit", _int(10, 1_000_000), "horns and events kept while the broker is away"),
    Key("mqtt.tick_s", _float(0.1, 60), "seconds between state messages while a clock runs"),
    Key("nats.url", _nats_url, "NATS server with JetStream (nats://); unset: no NATS"),
    Key("nats.stream", _text(r"[A-Za-z0-9_-]{1,64}", "a stream name (letters, digits, - _)"),
        "JetStream stream of the matches"),
    Key("nats.prefix", _text(r"[A-Za-z0-9_-]{1,64}", "a subject token (letters, digits, - _)"),
        "first token of every NATS subject"),
    Key("nats.officials_url", _optional(_http_url),
        "the officials' server (http[s]://), named in an edge's refusals of writes"),
    Key("nats.queue_limit", _int(10, 1_000_000), "events kept in memory while NATS is away"),
    Key("nats.signing_key", _signing_key,
        "shared secret signing every NATS message (the officials and every edge)",
        secret=True),
    Key("nats.user", _optional(_text(max_len=256)), "NATS user name"),
    Key("nats.password", _optional(_text(max_len=256)), "NATS password", secret=True),
    Key("nats.token", _optional(_text(r"[\x21-\x7e]{1,1024}", "printable ASCII")),
        "NATS token", secret=True),
    Key("nats.nkey_seed", _optional(_text(max_len=4096)), "file holding the NATS nkey seed"),
    Key("nats.creds", _optional(_text(max_len=4096)), "NATS creds file (JWT and nkey seed)"),
    Key("nats.tls_ca", _optional(_text(max_len=4096)), "CA bundle checking the NATS server"),
    Key("nats.tls_cert", _optional(_text(max_len=4096)), "client certificate for NATS (TLS)"),
    Key("nats.tls_key", _optional(_text(max_len=4096)), "client key for NATS (TLS)"),
    Key("nats.max_message_bytes", _int(4096, 64 << 20), "an edge refuses a larger message"),
    Key("horn.relays", _relays, "horn relays ([[horn.relays]] kind, topic, pulse_ms, arena)"),
    Key("horn.relay_max_late_ms", _int(0, 60_000),
        "a relay command this late is dropped, not sent"),
)
KEY_BY_NAME = {k.name: k for k in KEYS}


def _flatten(doc: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in doc.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and name not in KEY_BY_NAME:
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


#: a settings file is a few hundred bytes; anything past this is not one
MAX_FILE_BYTES = 1 << 20
#: tables nest three deep (``[server]``, ``[limits]``...); deeper is refused
MAX_FILE_DEPTH = 8


def _depth(v: Any, limit: int = MAX_FILE_DEPTH + 1) -> int:
    """How deep ``v`` nests, counting stops past ``limit`` (no recursion limit reached).

    >>> _depth({"a": {"b": [1, {"c": 2}]}}), _depth(3)
    (4, 0)
    """
    depth, level = 0, [v]
    while level and depth <= limit:
        nxt: list[Any] = []
        for x in level:
            if isinstance(x, dict):
                nxt.extend(x.values())
            elif isinstance(x, list):
                nxt.extend(x)
        if not nxt:
            break
        depth += 1
        level = nxt
    return depth


def _read_file(path: str | Path) -> tuple[dict[str, Any], list[ConfigError]]:
    """The known keys of a settings file, and one error per unknown key."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ConfigError("config", str(p), f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError("config", str(p), f"larger than {MAX_FILE_BYTES} bytes; "
                          "not a settings file") from None
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError("config", str(p), f"not UTF-8 text (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("config", str(p), f"not TOML: {e}") from None
    except RecursionError:
        raise ConfigError("config", str(p), "not a settings file: nested too deeply "
                          f"(settings nest {MAX_FILE_DEPTH} levels at most)") from None
    if _depth(doc) > MAX_FILE_DEPTH:
        raise ConfigError("config", str(p), "not a settings file: nested too deeply "
                          f"(settings nest {MAX_FILE_DEPTH} levels at most)")
    flat = _flatten(doc)
    errors: list[ConfigError] = []
    for name in flat:
        if name not in KEY_BY_NAME:
            close = [k for k in KEY_BY_NAME if k.split(".")[-1] == name.split(".")[-1]]
            hint = f" (did you mean {close[0]}?)" if close else ""
            errors.append(ConfigError(name, f"file {p}", "unknown setting" + hint))
    return {k: v for k, v in flat.items() if k in KEY_BY_NAME}, errors


def load(
    file: str | Path | bool | None = True,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """The settings in force.

    ``file``: a path, ``None`` for no file, ``True`` (default) for ``$CHUKKER_CONFIG`` if set.
    ``env``: the environment (default ``os.environ``). ``overrides``: command-line values by
    key (``None`` values are ignored).
    """
    environ = os.environ if env is None else env
    path: str | None
    if file is True:
        path = environ.get(CONFIG_ENV) or None
    elif file is None or file is False:
        path = None
    else:
        path = str(file)
    from_file, errors = _read_file(path) if path else ({}, [])
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in KEYS:
        raw: Any = None
        where = ""
        if overrides and overrides.get(key.name) is not None:
            raw, where = overrides[key.name], "command line"
        else:
            for var in (key.env, *key.aliases):
                if var in environ:
                    raw, where = environ[var], f"env {var}"
                    break
            else:
                if key.name in from_file:
                    raw, where = from_file[key.name], f"file {path}"
        if not where:
            continue
        try:
            values[key.name] = key.parse(raw)
        except ValueError as e:
            errors.append(ConfigError(key.name, where, str(e)))  # and read on: every bad value
            continue
        sources[key.name] = where
    _raise_all(errors)
    settings = _build(values, path, sources)
    _check(settings)
    return settings


def _build(values: Mapping[str, Any], path: str | None, sources: dict[str, str]) -> Settings:
    top: dict[str, Any] = {}
    sections: dict[str, dict[str, Any]] = {}
    for name, v in values.items():
        head, _, rest = name.partition(".")
        if rest:
            sections.setdefault(head, {})[rest] = v
        else:
            top[name] = v
    base = Settings()
    for sec, kv in sections.items():
        top[sec] = replace(getattr(base, sec), **kv)
    return replace(base, **top, config_file=path, sources=dict(sources))


def _check(s: Settings) -> None:
    """Checks across keys and against the file system."""
    d = Path(s.data_dir)
    if d.exists() and not d.is_dir():
        raise ConfigError("data_dir", s.source("data_dir"), f"{d} is not a folder")
    if s.limits.bad_tokens_block <= s.limits.bad_tokens_free:
        raise ConfigError("limits.bad_tokens_block", s.source("limits.bad_tokens_block"),
                          "must be more than limits.bad_tokens_free "
                          f"({s.limits.bad_tokens_free})")


def describe(s: Settings) -> str:
    """The settings in force as TOML, each key with where its value came from.

    The organiser token is never shown, only whether it is set. The output is a
    valid settings file.

    >>> print(next(x for x in describe(load(file=None, env={"CHUKKER_OPEN": "yes"})).splitlines()
    ...            if x.startswith("open")))
    open = true  # env CHUKKER_OPEN
    """
    head = f"# chukker settings (file: {s.config_file or 'none'}); strongest first: " \
        "command line, env, file, default"
    lines = [head]
    section = ""
    for key in KEYS:
        sec, _, name = key.name.rpartition(".")
        if sec != section:
            lines.append("")
            lines.append(f"[{sec}]")
            section = sec
        value = s.get(key.name)
        if key.secret:
            shown = '"(set, hidden)"' if value else '""'
        else:
            shown = _toml_value(hide_password(value) if isinstance(value, str) else value)
        lines.append(f"{name} = {shown}  # {s.source(key.name)}")
    return "\n".join(lines) + "\n"


def hide_password(text: str) -> str:
    """A database URL without its password.

    >>> hide_password("postgresql://chukker:s3cret@db/chukker")
    'postgresql://chukker:***@db/chukker'
    """
    return re.sub(r"^([a-z]+://[^:/@]+:)[^@]*(@)", r"\1***\2", text)


def _toml_value(v: Any) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if v is None:
        return '""'
    if isinstance(v, RelaySettings):
        items = {"kind": v.kind, "topic": v.topic, "pulse_ms": v.pulse_ms, "arena": v.arena}
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in items.items()
                               if x is not None) + "}"
    if isinstance(v, tuple) and v and isinstance(v[0], RelaySettings):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, tuple | list):
        return "[" + ", ".join(_toml_value(str(x) if not isinstance(x, str) else x)
                               for x in v) + "]"
    return json.dumps(str(v), ensure_ascii=False)


assert {f.name for f in fields(Settings)} >= {k.name.partition(".")[0] for k in KEYS}
