"""The ESP32 MicroPython sketch in docs/feeds.md reads the state the feed publishes
(run in CPython with stand-ins for MicroPython's modules; no hardware)."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

from tests.feeds.fake import PRACTICE

from chukker.feeds.payloads import public_state

DOC = Path(__file__).resolve().parents[2] / "docs" / "feeds.md"


def sketch(ticks: list[int]) -> dict[str, Any]:
    code = DOC.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    defs = code.split("\nwlan = ", 1)[0]  # the functions, not the device's main loop
    fake_time = types.SimpleNamespace(ticks_ms=lambda: ticks[0],
                                      ticks_diff=lambda a, b: a - b, sleep=lambda s: None)
    mods = {"network": types.ModuleType("network"), "umqtt": types.ModuleType("umqtt"),
            "umqtt.simple": types.ModuleType("umqtt.simple")}
    mods["umqtt.simple"].MQTTClient = object  # type: ignore[attr-defined]
    saved = {k: sys.modules.get(k) for k in mods}
    sys.modules.update(mods)
    try:
        ns: dict[str, Any] = {}
        exec(compile(defs, str(DOC), "exec"), ns)
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    ns["time"] = fake_time
    return ns


def test_esp32_sketch_counts_a_running_clock_down_from_the_states_arrival() -> None:
    ticks = [1_000]
    ns = sketch(ticks)
    rep = {"match_id": "m1", "seq": 1, "status": "in_play", "period": 1, "server_time": 5,
           "clock": {"remaining_ms": 350_000, "running": True}, "score": {"A": 2, "B": 1}}
    payload = json.dumps(public_state(PRACTICE, rep)).encode()
    ns["on_message"](b"chukker/match/m1/state", payload)
    assert ns["clock_text"](ns["state"]) == "5:50"
    ticks[0] += 10_500
    assert ns["clock_text"](ns["state"]) == "5:40"
    ns["on_message"](b"t", b"x" * 5000)  # too big: ignored, the last state stays
    ns["on_message"](b"t", b"{not json")
    assert ns["state"]["teams"]["A"]["score"] == 2
