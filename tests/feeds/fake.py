"""A stand-in for the live service that drives a listener from the engine on a virtual
clock: the calls ``chukker.live.LiveService`` makes (on_state, on_event, on_horn)."""

from __future__ import annotations

import time
from typing import Any

from chukker.engine import Match, Setup

PRACTICE = {
    "format": "chukker-match/1",
    "rules": "uspa-arena-2026",
    "options": {"periods": "regulation", "practice": {"period_s": 120, "interval_s": 30}},
    "teams": {
        "A": {"name": "Aguilas", "captain": 1, "players": [{"no": i, "name": f"A{i}", "handicap": 1}
                                             for i in (1, 2, 3)]},
        "B": {"name": "Búhos", "captain": 1, "players": [{"no": i, "name": f"B{i}", "handicap": 1}
                                           for i in (1, 2, 3)]},
    },
}


class FakeService:
    def __init__(self, listener: Any, match_id: str = "m1", header: dict[str, Any] | None = None,
                 start_ms: int | None = None) -> None:
        self.listener = listener
        self.id = match_id
        self.header = header or PRACTICE
        self.match = Match(Setup.from_dict(self.header), [])
        self.start_ms = start_ms if start_ms is not None else time.time_ns() // 1_000_000
        self.seq = 0
        self.cursor_ms = 0

    def header_of(self, match_id: str) -> dict[str, Any] | None:
        return self.header if match_id == self.id else None

    def report(self, at_ms: int) -> dict[str, Any]:
        rep = dict(self.match.report(at_ms))
        rep.update(match_id=self.id, seq=self.seq, at=at_ms / 1000,
                   server_time=self.start_ms + at_ms)
        return rep

    def event(self, at_s: float, type: str, **fields: Any) -> None:
        ev = {"type": type, **fields, "at": at_s}
        self.match.apply(ev)
        self.seq += 1
        at_ms = round(at_s * 1000)
        self.listener.on_event(self.id, self.seq, ev)
        self.listener.on_state(self.id, self.seq, self.report(at_ms))
        self.cursor_ms = max(self.cursor_ms, at_ms)

    def run_to(self, at_s: float) -> list[dict[str, Any]]:
        """Sound the horns due up to ``at_s`` (as the scheduler does); the horns sounded."""
        at_ms = round(at_s * 1000)
        rep = self.report(at_ms)
        out = []
        for h in rep.get("horns", []):
            h_ms = round(float(h["at"]) * 1000)
            if self.cursor_ms < h_ms <= at_ms:
                horn = {"kind": h["kind"], "period": h["period"], "at": self.start_ms + h_ms}
                out.append(horn)
                self.listener.on_horn(self.id, horn)
        self.cursor_ms = at_ms
        self.listener.on_state(self.id, self.seq, rep)
        return out
