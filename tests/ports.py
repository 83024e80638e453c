"""Ports for the servers a test starts, outside the range the kernel gives outgoing
connections (issue 45: a suite that holds under load).

A port found with ``bind(("127.0.0.1", 0))`` and then closed comes from the machine's
ephemeral range (``/proc/sys/net/ipv4/ip_local_port_range``, 32768-60999 by default):
the same range every outgoing connection of every process takes its local port from. A
busy machine can hand it to a client between the check and the server's bind. The
ports here come from below that range instead, each xdist worker (and each concurrent
pytest process) from its own stretch, never twice in one process, and each checked by
binding it (and the ``count - 1`` after it: ``chukker serve`` takes ``port + 1`` for the
officials' plane).

>>> p = free_port(2)
>>> 1024 < p < ephemeral()[0]
True
"""

from __future__ import annotations

import itertools
import os
import socket
from pathlib import Path

#: the stretch below the ephemeral range the ports come from
LOW = 20_000


def ephemeral() -> tuple[int, int]:
    """The kernel's range for outgoing connections' ports."""
    try:
        lo, hi = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(lo), int(hi)
    except (OSError, ValueError):
        return 32768, 60999


def _start() -> int:
    """Where this process begins: its xdist worker's stretch, moved by its pid so that
    two pytest runs at once (two checkouts) rarely meet."""
    high = min(ephemeral()[0], 65_000)
    span = max(1_000, high - LOW)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    n = int(worker[2:]) if worker[2:].isdigit() else 0
    stretch = span // 4
    return LOW + (n % 4) * stretch + (os.getpid() * 37) % max(1, stretch - 200)


_next = itertools.count(_start())


def bindable(host: str, port: int) -> bool:
    """Whether ``port`` on ``host`` can be bound now (bound, then released)."""
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def free_port(count: int = 1, host: str = "127.0.0.1") -> int:
    """A port such that it and the ``count - 1`` after it are free on ``host`` now, from
    outside the ephemeral range, never handed out before in this process."""
    global _next
    high = min(ephemeral()[0], 65_000)
    for _ in range(5_000):
        port = next(_next)
        if port + count >= high:
            _next = itertools.count(LOW + (port % 97))
            continue
        if all(bindable(host, port + i) for i in range(count)):
            for _ in range(count - 1):
                next(_next)
            return port
    raise RuntimeError("no free port below the ephemeral range")


def held_socket(host: str = "127.0.0.1") -> socket.socket:
    """A bound socket on a free port, for a server in this process to take (no gap
    between the check and the bind)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, free_port(1, host)))
    return s
