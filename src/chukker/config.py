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
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from chukker.config_keys import (
    KEY_BY_NAME,
    KEYS,
    Network,
    RelaySettings,
    hide_password,
)
from chukker.errors import ChukkerError

CONFIG_ENV = "CHUKKER_CONFIG"



class ConfigError(ChukkerError):
    """A setting is wrong: names the key, where its value came from, and why."""

    code = "config_invalid"

    def __init__(self, key: str, where: str, reason: str) -> None:
        self.key = key
        self.where = where
        self.reason = reason
        super().__init__(f"{key} ({where}): {reason}" if where else f"{key}: {reason}",
                         params={"key": key, "where": where, "reason": reason})


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
    #: seconds a client that stopped reading may keep the server's writes blocked
    write_stall_s: float = 30.0
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
