"""What a PostgreSQL ``NOTIFY`` of an append says, and what a listener believes of it.

An append is told on the store's channel as ``"<match id>:<seq>"`` (every version) and,
since issue 43, first as a *signed* payload that carries the stored event too, so
that no listening process reads it again from the database::

    <match id>:<seq>:<mac>\\n["<command id>","<body>",<recorded ms>,"<actor>"]

``mac`` is HMAC-SHA256 (its first 128 bits, hex; :class:`Signer`) of ``"chukker-notify-1\\n<match
id>:<seq>\\n<json>"`` under the key kept in the store's schema (``notify_key``, made
with the schema, readable by the store's own role only). Any role that can connect
to the database may ``NOTIFY`` on the channel, but only one that can read the key
can sign: a payload with a bad or missing signature is not believed (:meth:`Signer.believe`),
the store is read instead. A replayed payload is a true event of that match and seq
(events are append-only), so it changes nothing.

The payload is at most :data:`MAX_PAYLOAD` bytes (PostgreSQL refuses 8,000 or more);
an event too big to fit is told by ``"<match id>:<seq>"`` alone and read. A listener
of an older version ignores the signed payload (its text after the last ``:`` is no
number) and acts on the plain one sent with it; a listener of this version skips
that plain twin.

Hearing is bounded: a payload longer than :data:`MAX_PAYLOAD` is dropped unread; else
its head is split (:func:`heard`) and, only when the event is taken, one HMAC over it
and (signed) two ``json.loads`` of at most that many bytes (:meth:`Signer.believe`). A
payload names a match (checked against :data:`~chukker.store.base.MATCH_ID`) and a
number, never a table, a schema, a channel or a path.

>>> key = b"k" * 32
>>> e = StoredEvent(2, "c2", {"type": "goal", "at": 1.5}, 7, "timekeeper")
>>> p = signed(key, "m1", e)
>>> h = heard(p)
>>> p.split("\\n")[0][:5], (h.key, h.seq, h.carried), believe(key, h) == e
('m1:2:', ('m1', 2, True), True)
>>> heard("m1:2"), believe(b"x" * 32, h), heard("../etc:2")
(Heard(key='m1', seq=2, mac='', body=None), None, None)
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from chukker.store.base import MATCH_ID, StoredEvent
from chukker.store.notify import unpack

#: the longest payload sent or read (PostgreSQL: "payload string too long" at 8,000)
MAX_PAYLOAD = 7999
#: hex digits of the HMAC kept in a payload (128 bits)
MAC_HEX = 32
#: what the HMAC covers first: the format's version (a later format signs another text)
DOMAIN = b"chukker-notify-1\n"
#: bytes of a schema's signing key
KEY_BYTES = 32


@dataclass(frozen=True, slots=True)
class Heard:
    """A notification as heard: its key (a match id, or ``t.<id>`` for a tournament's
    log) and seq, and what it carried (``mac``, ``body``: not checked yet, see
    :func:`believe`), or ``body`` None (``<id>:<seq>``)."""

    key: str
    seq: int
    mac: str = ""
    body: str | None = None

    @property
    def carried(self) -> bool:
        return self.body is not None


def plain(key: str, seq: int) -> str:
    """The payload every version understands.

    >>> plain("m1", 3)
    'm1:3'
    """
    return f"{key}:{seq}"


#: one encoder for every payload (``json.dumps`` with options makes one per call)
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


class Signer:
    """Signs and checks payloads with one schema's key: HMAC-SHA256 (the standard
    library's ``hmac``), keyed once, each payload's MAC taken from a copy of it, so that
    a payload pays no key set-up (13-20 us in the officials' append thread, cold).

    >>> Signer(b"k" * 32).mac("m1:2", "[]") == hmac.new(
    ...     b"k" * 32, DOMAIN + b"m1:2\\n[]", "sha256").hexdigest()[:MAC_HEX].encode()
    True
    """

    __slots__ = ("_keyed",)

    def __init__(self, key: bytes) -> None:
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)

    def mac(self, head: str, body: str) -> bytes:
        """The MAC of a payload's head and body, as its hex digits (ASCII)."""
        h = self._keyed.copy()
        h.update(DOMAIN + f"{head}\n{body}".encode("utf-8", "surrogatepass"))
        return h.digest()[:MAC_HEX // 2].hex().encode("ascii")

    def signed(self, match_id: str, stored: StoredEvent,
               text: str | None = None) -> str | None:
        """The signed payload carrying ``stored`` (``text``: its
        :meth:`~chukker.store.base.StoredEvent.body`, if made already), or None if it
        would not fit."""
        body = _ENCODE([stored.command_id, stored.body() if text is None else text,
                        stored.recorded_ms, stored.actor])
        head = f"{match_id}:{stored.seq}"
        if len(head) + len(body) + MAC_HEX + 2 > MAX_PAYLOAD:
            return None
        return f"{head}:{self.mac(head, body).decode('ascii')}\n{body}"

    def believe(self, told: Heard) -> StoredEvent | None:
        """The event ``told`` carried, if it is signed with this key and is an event;
        else None (not believed: read the store). At most one MAC and two
        ``json.loads`` of at most :data:`MAX_PAYLOAD` bytes.

        >>> s = Signer(b"k")
        >>> s.believe(Heard("m1", 4, "é" * 32, "[]")), s.believe(Heard("m1", 4))
        (None, None)
        """
        body, mac = told.body, told.mac
        if (body is None or len(mac) != MAC_HEX
                or not hmac.compare_digest(mac.encode("utf-8", "surrogatepass"),
                                           self.mac(f"{told.key}:{told.seq}", body))):
            return None
        return unpack(body, told.seq)


def signed(key: bytes, match_id: str, stored: StoredEvent) -> str | None:
    """:meth:`Signer.signed` with ``key`` (a store keeps its :class:`Signer`)."""
    return Signer(key).signed(match_id, stored)


def believe(key: bytes | None, told: Heard) -> StoredEvent | None:
    """:meth:`Signer.believe` with ``key``; None believes nothing (a process that may not
    read the key)."""
    return Signer(key).believe(told) if key is not None else None


def _key_seq(key: str, seq: str) -> tuple[str, int] | None:
    k = key[2:] if key.startswith("t.") else key  # a tournament's log
    if not MATCH_ID.match(k) or not (seq.isascii() and seq.isdigit()) or len(seq) > 12:
        return None
    return key, int(seq)


def heard(payload: str) -> Heard | None:
    """What ``payload`` tells, or None (ignored: nothing this store sends). Its head
    only is read here (what it carries is checked when it is taken, by :meth:`Signer.believe`:
    a process that never takes it, such as the officials' own, pays nothing for it).

    >>> heard("m1:²"), heard("m1:" + "9" * 13), heard("x" * 9000), heard("m1:2:3:4")
    (None, None, None, None)
    >>> heard('m1:4\\n["c","{}",5,"tk"]')
    Heard(key='m1', seq=4, mac='', body='["c","{}",5,"tk"]')
    """
    if len(payload) > MAX_PAYLOAD:
        return None
    head, nl, body = payload.partition("\n")
    parts = head.split(":", 3)
    if not 2 <= len(parts) <= 3:
        return None
    told = _key_seq(parts[0], parts[1])
    if told is None:
        return None
    if not nl:
        return Heard(*told) if len(parts) == 2 else None  # "<id>:<seq>": read it
    return Heard(*told, parts[2] if len(parts) == 3 else "", body)
