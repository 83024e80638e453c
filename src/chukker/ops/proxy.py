"""The client's address behind trusted reverse proxies.

A proxy says whom it forwards for in ``Forwarded: for=...`` (RFC 7239) or
``X-Forwarded-For: client, proxy1, ...``. Anyone can send those headers, so
they are believed only when the connection comes from a trusted proxy, and
only as far as the chain of trusted proxies goes: walking the list from the
right (the hop nearest to us), the first address that is not a trusted proxy
is the client. With no trusted proxies (the default) the headers are ignored.

Only one of the two headers is read (setting ``proxy_header``, issue 41): the one the
proxy sets itself. The other is the client's own, passed on by the proxy, and never
believed (a client's ``Forwarded`` would otherwise dodge every per-address limit, or
spend a victim's).

>>> p = TrustedProxies.parse(["10.0.0.0/8"])
>>> p.client("10.0.0.5", [("x-forwarded-for", "203.0.113.7, 10.0.0.9")])
'203.0.113.7'
>>> p.client("198.51.100.1", [("x-forwarded-for", "203.0.113.7")])  # not a proxy of ours
'198.51.100.1'
>>> p.client("10.0.0.5", [("forwarded", "for=192.0.2.9"), ("x-forwarded-for", "203.0.113.7")])
'203.0.113.7'
>>> f = TrustedProxies.parse(["10.0.0.0/8"], header="forwarded")
>>> f.client("10.0.0.5", [("forwarded", 'for="[2001:db8::1]:4711";proto=https')])
'2001:db8::1'
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: longest forwarding chain read (a header can be made arbitrarily long)
MAX_HOPS = 32
#: the forwarding headers a proxy may set (setting ``proxy_header``)
HEADERS = ("x-forwarded-for", "forwarded")


@functools.lru_cache(maxsize=4096)
def parse_address(text: str) -> Address | None:
    """An IP address from a header item: ports, brackets and quotes removed.

    >>> parse_address('"[2001:db8::1]:80"'), parse_address("192.0.2.1:8080")
    (IPv6Address('2001:db8::1'), IPv4Address('192.0.2.1'))
    >>> parse_address("unknown"), parse_address("_hidden")
    (None, None)
    """
    s = text.strip().strip('"').strip()
    if s.startswith("["):
        end = s.find("]")
        if end < 0:
            return None
        s = s[1:end]
    elif s.count(":") == 1:  # IPv4 with a port
        s = s.split(":", 1)[0]
    try:
        addr = ipaddress.ip_address(s)
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def forwarded_for(value: str) -> list[str]:
    """The ``for=`` values of a ``Forwarded`` header, in order.

    >>> forwarded_for('for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8::17]"')
    ['192.0.2.60', '[2001:db8::17]']
    """
    out: list[str] = []
    for element in _split_outside_quotes(value, ","):
        for pair in _split_outside_quotes(element, ";"):
            name, eq, v = pair.partition("=")
            if eq and name.strip().lower() == "for":
                out.append(v.strip().strip('"'))
    return out


def _split_outside_quotes(text: str, sep: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == sep and not quoted:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]


@functools.lru_cache(maxsize=4096)
def _trusted(networks: tuple[Network, ...], addr: Address) -> bool:
    return any(addr in n for n in networks if n.version == addr.version)


@dataclass(frozen=True, slots=True)
class TrustedProxies:
    networks: tuple[Network, ...] = ()
    #: the one header believed (:data:`HEADERS`)
    header: str = "x-forwarded-for"

    def __post_init__(self) -> None:
        if self.header not in HEADERS:
            raise ValueError(f"proxy_header {self.header!r} is not one of {', '.join(HEADERS)}")

    @classmethod
    def parse(cls, items: Iterable[str | Network],
              header: str = "x-forwarded-for") -> TrustedProxies:
        nets = [n if not isinstance(n, str) else ipaddress.ip_network(n.strip(), strict=False)
                for n in items]
        return cls(tuple(nets), header)

    def trusts(self, addr: Address | None) -> bool:
        return addr is not None and _trusted(self.networks, addr)

    def client(self, peer: str | None, headers: Sequence[tuple[str, str]]) -> str:
        """The client's address for a connection from ``peer`` with ``headers``.

        ``headers``: (lower-case name, value) pairs. Only :attr:`header` is read (the
        other is ignored, whatever it says); several header lines join in order.
        """
        peer_s = peer or "?"
        if not self.networks:
            return peer_s
        peer_addr = parse_address(peer_s)
        if not self.trusts(peer_addr):
            return peer_s
        hops: list[str] = []
        for v in (v for k, v in headers if k == self.header):
            if self.header == "forwarded":
                hops.extend(forwarded_for(v))
            else:
                hops.extend(x.strip() for x in v.split(",") if x.strip())
        hops = hops[-MAX_HOPS:]
        current = peer_addr
        for item in reversed(hops):
            addr = parse_address(item)
            if addr is None:
                # "unknown" or an obfuscated name: nothing further left can be believed
                return str(current)
            if not self.trusts(addr):
                return str(addr)
            current = addr
        return str(current)


#: a host (and port) a trusted proxy may name in its forwarded origin
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*"
                   r"|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")


def forwarded_origin(proxies: TrustedProxies, scope: Any) -> str | None:
    """``scheme://host[:port]`` that a trusted proxy says the client asked for
    (``Forwarded: host=...;proto=...``, or ``X-Forwarded-Host`` and ``X-Forwarded-Proto``,
    as :attr:`TrustedProxies.header` chooses; the last, the nearest proxy's, counts), or
    ``None``: not from a trusted proxy, not said, or not a host name.

    >>> p = TrustedProxies.parse(["10.0.0.0/8"])
    >>> s = {"client": ("10.0.0.2", 1), "headers": [(b"x-forwarded-host", b"arena.example"),
    ...                                             (b"x-forwarded-proto", b"https")]}
    >>> forwarded_origin(p, s), forwarded_origin(p, {**s, "client": ("192.0.2.1", 1)})
    ('https://arena.example', None)
    """
    client = scope.get("client")
    if not proxies.networks or not client or not proxies.trusts(parse_address(client[0])):
        return None
    host = proto = ""
    for k, v in scope.get("headers", []):
        if proxies.header == "forwarded" and k == b"forwarded":
            last = _split_outside_quotes(v.decode("latin-1"), ",")[-1:]
            for pair in _split_outside_quotes(last[0] if last else "", ";"):
                name, _, value = pair.partition("=")
                name, value = name.strip().lower(), value.strip().strip('"')
                host = value if name == "host" else host
                proto = value.lower() if name == "proto" else proto
        elif proxies.header == "x-forwarded-for" and k == b"x-forwarded-host":
            host = v.decode("latin-1").split(",")[-1].strip()
        elif proxies.header == "x-forwarded-for" and k == b"x-forwarded-proto":
            proto = v.decode("latin-1").split(",")[-1].strip().lower()
    if not host or len(host) > 260 or not _HOST.fullmatch(host):
        return None
    return f"{proto if proto in ('http', 'https') else 'http'}://{host}"


def request_headers(scope: dict[str, Any] | Any) -> list[tuple[str, str]]:
    """(name, value) pairs of an ASGI scope's forwarding headers, lower-case names."""
    out = []
    for k, v in scope.get("headers", []):
        if k in (b"forwarded", b"x-forwarded-for"):
            out.append((k.decode("latin-1"), v.decode("latin-1")))
    return out


def client_of_scope(scope: Any, proxies: TrustedProxies) -> str:
    """The client's address of an ASGI request (``scope``) behind ``proxies``."""
    client = scope.get("client")
    peer = client[0] if client else None
    return proxies.client(peer, request_headers(scope))


def client_of_app_scope(scope: Mapping[str, Any], proxies: TrustedProxies) -> str:
    """The client's address of an ASGI request to an app that trusts ``proxies``.

    What the operations middleware worked out (``scope["chukker_client"]``) if it ran;
    else the client behind ``proxies``.

    >>> scope = {"client": ("10.0.0.5", 1), "headers": [(b"x-forwarded-for", b"203.0.113.7")]}
    >>> client_of_app_scope(scope, TrustedProxies.parse(["10.0.0.0/8"]))
    '203.0.113.7'
    >>> client_of_app_scope(scope, TrustedProxies())
    '10.0.0.5'
    >>> client_of_app_scope({**scope, "chukker_client": "192.0.2.1"}, TrustedProxies())
    '192.0.2.1'
    """
    found = scope.get("chukker_client")
    if isinstance(found, str):
        return found
    return client_of_scope(scope, proxies)
