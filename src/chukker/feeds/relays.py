"""Horn relays: the MQTT commands that make an air horn sound, by firmware.

* ``tasmota``: ``cmnd/<topic>/POWER`` ``ON`` at the horn's instant, ``OFF`` after
  ``pulse_ms`` (set ``PulseTime`` on the device too, so a lost ``OFF`` cannot
  leave the horn blowing: ``docs/feeds.md``);
* ``shelly`` (Gen2+ RPC over MQTT): ``<topic>/rpc``, ``Switch.Set`` with
  ``toggle_after``, so the device itself switches off;
* ``topic``: the horn object itself on ``<topic>``, for boards of the club's own making.

>>> from chukker.config_keys import RelaySettings
>>> horn = {"kind": "end", "period": 1, "at": 1_000}
>>> [(c.delay_ms, c.topic, c.payload) for c in commands(RelaySettings("tasmota", "a1"), horn)]
[(0, 'cmnd/a1/POWER', b'ON'), (1500, 'cmnd/a1/POWER', b'OFF')]
>>> commands(RelaySettings("shelly", "shellyplus1-a1", 800), horn)[0].payload
b'{"id":1000,"src":"chukker","method":"Switch.Set","params":{"id":0,"on":true,"toggle_after":0.8}}'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chukker.config_keys import RelaySettings


@dataclass(frozen=True, slots=True)
class Command:
    """One MQTT message for a relay, ``delay_ms`` after the horn's instant."""

    topic: str
    payload: bytes
    delay_ms: int = 0
    #: the one that makes the horn sound (its latency is measured; a late one is dropped)
    sounds: bool = True


def commands(relay: RelaySettings, horn: Mapping[str, Any], src: str = "chukker"
             ) -> list[Command]:
    """The messages that sound ``relay`` for ``horn`` (``{kind, period, at}``, epoch ms)."""
    if relay.kind == "tasmota":
        t = f"cmnd/{relay.topic}/POWER"
        return [Command(t, b"ON"), Command(t, b"OFF", relay.pulse_ms, sounds=False)]
    if relay.kind == "shelly":
        rpc = {"id": int(horn["at"]) % 2_147_483_647, "src": src, "method": "Switch.Set",
               "params": {"id": 0, "on": True, "toggle_after": relay.pulse_ms / 1000}}
        return [Command(f"{relay.topic}/rpc", json.dumps(rpc, separators=(",", ":")).encode())]
    if relay.kind == "topic":
        body = {"kind": horn.get("kind"), "period": horn.get("period"), "at": horn["at"],
                "pulse_ms": relay.pulse_ms}
        return [Command(relay.topic, json.dumps(body, separators=(",", ":")).encode())]
    raise ValueError(f"horn relay {relay.topic!r}: unknown kind {relay.kind!r}")


def serves(relay: RelaySettings, arena: str | None) -> bool:
    """Whether ``relay`` sounds for a match played on ``arena`` (``None``: not known).

    >>> r = RelaySettings("topic", "x", arena="A1")
    >>> serves(RelaySettings("topic", "x"), None), serves(r, "A2"), serves(r, "A1")
    (True, False, True)
    """
    return relay.arena is None or relay.arena == arena
