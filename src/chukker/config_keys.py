"""The settings' keys: each key's name, parser (bounds, choices, formats), help and
environment variable (:data:`KEYS`), the parsers themselves, and the values a key
holds that are not plain (a network, a horn relay).

>>> KEY_BY_NAME["server.port"].env
'CHUKKER_SERVER_PORT'
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_PREFIX = "CHUKKER_"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class RelaySettings:
    """One horn relay (``[[horn.relays]]``)."""

    #: ``tasmota``, ``shelly`` or ``topic``
    kind: str
    topic: str
    pulse_ms: int = 1500
    #: only the matches played on this arena (tournaments); ``None``: every match
    arena: str | None = None


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
    Key("limits.write_stall_s", _float(0.1, 3600),
        "seconds a client that stopped reading may keep writes blocked",
        aliases=("CHUKKER_WRITE_STALL_S",)),
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


def hide_password(text: str) -> str:
    """A database URL without its password.

    >>> hide_password("postgresql://chukker:s3cret@db/chukker")
    'postgresql://chukker:***@db/chukker'
    """
    return re.sub(r"^([a-z]+://[^:/@]+:)[^@]*(@)", r"\1***\2", text)
