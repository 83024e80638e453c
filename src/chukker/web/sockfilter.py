"""Addresses shut out by the kernel: a classic BPF socket filter on the officials'
listening socket (issue 41).

An address that the officials' door (:class:`chukker.web.gate.AddressGate`) shuts out
should cost the officials' event loop nothing: no accept, no protocol object, no parse,
no answer. On Linux, :class:`KernelDoor` attaches to the listening socket a filter
(``SO_ATTACH_FILTER``, no privilege needed) that drops every packet from the shut-out
addresses, their ``SYN`` included: the kernel answers nothing, the client's ``connect``
waits and retries on its own clock, and Python never sees it. A connection already
accepted keeps the filter it was accepted under, so a shut-out never cuts one.

The program is small and bounded (:data:`MAX_INSTRUCTIONS`: each accepted connection
carries it, charged to the socket's option memory), so it holds the most recently shut
out addresses that fit; the door refuses the others itself, in ``connection_made``.
Elsewhere than Linux, or if the kernel refuses the filter, :meth:`KernelDoor.attach`
answers ``None`` and the door does all of it in Python.

>>> len(program([])), len(program(["10.0.0.1", "::ffff:10.0.0.2", "2001:db8::1"]))
(1, 22)
>>> fits(["10.0.0.%d" % i for i in range(250)]), fits(["10.0.0.%d" % i for i in range(255)])
(True, False)
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import socket
import struct
import sys
from collections.abc import Iterable, Sequence

#: setsockopt(2) options (asm-generic/socket.h)
SO_ATTACH_FILTER = 26
#: the most instructions a program has: ~4 KB, far under ``net.core.optmem_max``
MAX_INSTRUCTIONS = 512
#: classic BPF's offset of the network (IP) header, as an unsigned 32-bit constant
_NET = 0xFFF00000  # SKF_NET_OFF (-0x100000)
_LD_B_ABS, _LD_W_ABS, _RSH_K, _JEQ_K, _JA, _RET_K = 0x30, 0x20, 0x74, 0x15, 0x05, 0x06
_ACCEPT, _DROP = 0xFFFFFFFF, 0


def _ins(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _split(addresses: Iterable[str]) -> tuple[list[int], list[bytes]]:
    """IPv4 addresses (an IPv4-mapped IPv6 one too) as integers, IPv6 ones as 16 bytes;
    a string that is no address is skipped."""
    v4: list[int] = []
    v6: list[bytes] = []
    for a in addresses:
        try:
            ip = ipaddress.ip_address(a.split("%", 1)[0])
        except ValueError:
            continue
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if isinstance(ip, ipaddress.IPv4Address):
            v4.append(int(ip))
        else:
            v6.append(ip.packed)
    return v4, v6


def program(addresses: Iterable[str]) -> list[bytes]:
    """The filter's instructions: drop a packet whose source is one of ``addresses``,
    accept every other (any other protocol too)."""
    v4, v6 = _split(addresses)
    if not v4 and not v6:
        return [_ins(_RET_K, 0, 0, _ACCEPT)]
    v4_part = [_ins(_LD_W_ABS, 0, 0, _NET + 12)]  # the IPv4 source
    for a in v4:
        v4_part += [_ins(_JEQ_K, 0, 1, a), _ins(_RET_K, 0, 0, _DROP)]
    v4_part.append(_ins(_RET_K, 0, 0, _ACCEPT))
    v6_part = [_ins(_JEQ_K, 1, 0, 6), _ins(_RET_K, 0, 0, _ACCEPT)]  # A: the version
    for packed in v6:  # the IPv6 source: four words, at 8, 12, 16, 20
        words = struct.unpack("!IIII", packed)
        for i, w in enumerate(words):
            skip = 2 * (3 - i) + 1  # to the next address's block
            v6_part += [_ins(_LD_W_ABS, 0, 0, _NET + 8 + 4 * i), _ins(_JEQ_K, 0, skip, w)]
        v6_part.append(_ins(_RET_K, 0, 0, _DROP))
    v6_part.append(_ins(_RET_K, 0, 0, _ACCEPT))
    head = [_ins(_LD_B_ABS, 0, 0, _NET), _ins(_RSH_K, 0, 0, 4),  # the IP version
            _ins(_JEQ_K, 1, 0, 4), _ins(_JA, 0, 0, len(v4_part))]
    return head + v4_part + v6_part


def fits(addresses: Sequence[str]) -> bool:
    """Whether the program for ``addresses`` stays within :data:`MAX_INSTRUCTIONS`."""
    return len(program(addresses)) <= MAX_INSTRUCTIONS


class KernelDoor:
    """The filter on one listening socket (see the module)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        #: the addresses the kernel drops now
        self.dropped: tuple[str, ...] = ()

    @classmethod
    def attach(cls, sock: socket.socket) -> KernelDoor | None:
        """The filter on ``sock``, dropping nothing yet (a filter an earlier process
        left there replaced); ``None`` where the kernel offers none."""
        if not sys.platform.startswith("linux"):
            return None
        door = cls(sock)
        return door if door.apply([]) == 0 else None

    def apply(self, addresses: Sequence[str]) -> int:
        """Drop the last of ``addresses`` that fit (the most recently shut out, given in
        order); how many the kernel drops, or -1 if it refused the filter (then none)."""
        keep = last_that_fit(addresses)
        code = program(keep)
        buf = ctypes.create_string_buffer(b"".join(code))
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER,
                                 struct.pack("HL", len(code), ctypes.addressof(buf)))
        except OSError:
            with contextlib.suppress(OSError):  # never leave an older list dropping
                self.sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, _ACCEPT_ALL)
            self.dropped = ()
            return -1
        self.dropped = tuple(keep)
        return len(keep)


def last_that_fit(addresses: Sequence[str]) -> list[str]:
    """The last of ``addresses`` whose program fits :data:`MAX_INSTRUCTIONS`.

    >>> len(last_that_fit(["10.0.0.%d" % i for i in range(255)]))
    251
    """
    room = MAX_INSTRUCTIONS - len(program(["0.0.0.0", "::1"])) + 2 + 9
    n = 0
    for a in reversed(addresses):
        room -= 9 if ":" in a and not a.startswith("::ffff:") else 2
        if room < 0:
            break
        n += 1
    return list(addresses[len(addresses) - n:])


_ACCEPT_ALL_CODE = ctypes.create_string_buffer(_ins(_RET_K, 0, 0, _ACCEPT))
_ACCEPT_ALL = struct.pack("HL", 1, ctypes.addressof(_ACCEPT_ALL_CODE))
