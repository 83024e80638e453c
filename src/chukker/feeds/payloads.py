"""What the feeds say: MQTT topics and payloads, and the flat record of the broadcast feeds.

Everything here is a pure function of a match's header, the live service's
report and an instant (epoch ms, as the API's ``/api/time``): the MQTT
adapter, the terminal board and the ``feed.json``/``feed.xml``/``feed.csv``
routes all build from it, so a board, a relay and a vMix title read the same
numbers as the big screen.

>>> rep = {"match_id": "m1", "seq": 3, "status": "in_play", "period": 1, "at": 10.0,
...        "server_time": 1_000_000, "clock": {"remaining_ms": 440_000, "running": True},
...        "score": {"A": 1, "B": 0}, "winner": None, "decided_by": None, "interval": None,
...        "goals": [], "pending_penalty": None, "practice": None}
>>> s = public_state({"teams": {"A": {"name": "Blue"}, "B": {"name": "White"}}}, rep, 1_001_500)
>>> s["clock_ms"], s["running"], s["at"], s["teams"]["A"]["score"]
(438500, True, 1001500, 1)
>>> topic_state("chukker", "m1"), arena_slug("Arena 1")
('chukker/match/m1/state', 'arena-1')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

#: the colours of the two teams on chukker's screens (``live.css``: ``--a``, ``--b``)
TEAM_COLOURS = {"A": "#1f5fbf", "B": "#a8322c"}
#: the order of the flat record's fields (CSV columns, XML children)
FLAT_FIELDS: tuple[str, ...] = (
    "match_id", "team_a_name", "team_a_score", "team_b_name", "team_b_score", "period",
    "clock", "clock_ms", "running", "status", "status_text", "interval_ms", "last_goal_team",
    "last_goal_player", "last_goal_at", "penalty_pending", "penalty_to", "winner", "seq", "at",
)


def topic_state(prefix: str, match_id: str) -> str:
    return f"{prefix}/match/{match_id}/state"


def topic_event(prefix: str, match_id: str) -> str:
    return f"{prefix}/match/{match_id}/event"


def topic_horn(prefix: str, match_id: str) -> str:
    return f"{prefix}/match/{match_id}/horn"


def topic_arena(prefix: str, arena: str, what: str) -> str:
    """>>> topic_arena("chukker", "Cancha Dos", "horn")
    'chukker/arena/cancha-dos/horn'
    """
    return f"{prefix}/arena/{arena_slug(arena)}/{what}"


def arena_slug(arena: str) -> str:
    """A topic level from an arena's name: lower case ASCII letters, digits and ``-``.

    >>> arena_slug("Árena  Nº 2/Norte"), arena_slug("+#"), arena_slug("")
    ('arena-no-2-norte', 'arena', 'arena')
    """
    plain = unicodedata.normalize("NFKD", arena).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    return slug[:60] or "arena"


def fmt_clock(ms: int | None) -> str:
    """The clock as the screens show it (seconds rounded up).

    >>> fmt_clock(350_000), fmt_clock(4_200), fmt_clock(0), fmt_clock(None)
    ('5:50', '0:05', '0:00', '')
    """
    if ms is None:
        return ""
    s = -(-int(ms) // 1000)
    return f"{s // 60}:{s % 60:02d}"


def _remaining(ms: Any, running: bool, elapsed: int) -> int | None:
    if ms is None:
        return None
    return max(0, int(ms) - (elapsed if running else 0))


def public_state(header: Mapping[str, Any], report: Mapping[str, Any],
                 now_ms: int | None = None) -> dict[str, Any]:
    """The state topic's payload: the public state of a match as of ``now_ms`` (epoch ms).

    ``report`` is the live service's report (the engine's report with ``match_id``,
    ``seq``, ``at`` and ``server_time``, the epoch ms it describes). A running clock
    is carried on from ``server_time`` to ``now_ms`` (default: ``server_time``), as the
    screens do, so the payload published once a second while a clock runs needs no
    engine call.
    """
    base = int(report.get("server_time") or 0)
    at = base if now_ms is None else max(int(now_ms), base)
    elapsed = at - base
    clock = report.get("clock") or {}
    running = bool(clock.get("running"))
    interval = report.get("interval")
    teams_h = header.get("teams") or {}
    score = report.get("score") or {}
    teams = {}
    for k in ("A", "B"):
        t = teams_h.get(k) or {}
        teams[k] = {"name": str(t.get("name") or k), "colour": TEAM_COLOURS[k],
                    "score": int(score.get(k, 0))}
    goals = report.get("goals") or []
    last = goals[-1] if goals else None
    status = str(report.get("status", "pre_match"))
    pen = report.get("pending_penalty")
    return {
        "match_id": report.get("match_id"),
        "seq": int(report.get("seq", 0)),
        "at": at,
        "status": status,
        "period": report.get("period"),
        "clock_ms": _remaining(clock.get("remaining_ms"), running, elapsed),
        "running": running,
        "interval_ms": None if not interval else _remaining(
            interval.get("remaining_ms"), status == "interval", elapsed),
        "teams": teams,
        "practice": report.get("practice") is not None,
        "last_goal": None if last is None else {
            "team": last.get("team"), "player": last.get("player"),
            "points": last.get("points"), "at": last.get("at"), "period": last.get("period")},
        "penalty_pending": None if not pen else {
            "penalty": pen.get("penalty"), "to": pen.get("to"), "against": pen.get("against")},
        "final": status == "final",
        "result": None if status != "final" else {
            "winner": report.get("winner"), "decided_by": report.get("decided_by")},
    }


def event_payload(match_id: str, seq: int, event: Mapping[str, Any],
                  start_ms: int | None = None) -> dict[str, Any]:
    """The event topic's payload: the stored event (undos too, ``at`` in record seconds as
    in the record) with its ``seq`` and, with the match's start, ``at_ms`` (epoch ms).

    >>> event_payload("m1", 4, {"type": "undo", "at": 3.5}, 1_000_000)
    {'match_id': 'm1', 'seq': 4, 'at_ms': 1003500, 'event': {'type': 'undo', 'at': 3.5}}
    """
    at_ms = None if start_ms is None else start_ms + round(float(event.get("at", 0)) * 1000)
    return {"match_id": match_id, "seq": seq, "at_ms": at_ms, "event": dict(event)}


def horn_payload(match_id: str, horn: Mapping[str, Any]) -> dict[str, Any]:
    """The horn topic's payload ``{kind, period, at}`` (``at`` in epoch ms).

    >>> horn_payload("m1", {"kind": "end", "period": 2, "at": 1_700_000_000_000})
    {'kind': 'end', 'period': 2, 'at': 1700000000000, 'match_id': 'm1'}
    """
    return {"kind": str(horn.get("kind", "")), "period": int(horn.get("period", 0) or 0),
            "at": int(horn["at"]), "match_id": match_id}


def flat_record(state: Mapping[str, Any], status_text: str | Callable[[str, Any], str]
                ) -> dict[str, Any]:
    """The one flat record of ``feed.json``/``.xml``/``.csv`` from a :func:`public_state`.

    ``status_text``: the status in the asked language (or a function of status and
    period giving it).

    >>> st = public_state({"teams": {"A": {"name": "Blue"}, "B": {"name": "White"}}},
    ...     {"match_id": "m1", "seq": 2, "status": "stopped", "period": 1,
    ...      "server_time": 5, "clock": {"remaining_ms": 350_000, "running": False},
    ...      "score": {"A": 0, "B": 2}})
    >>> r = flat_record(st, "Periodo 1 · Reloj detenido")
    >>> r["clock"], r["team_b_score"], r["running"], r["last_goal_team"]
    ('5:50', 2, False, None)

    During an interval ``clock`` counts the interval down (``clock_ms`` stays the
    period's clock, ``interval_ms`` the interval's):

    >>> iv = public_state({}, {"status": "interval", "period": 1, "server_time": 5,
    ...     "clock": {"remaining_ms": 0, "running": False},
    ...     "interval": {"remaining_ms": 170_000}}, now_ms=10_005)
    >>> r = flat_record(iv, "Interval")
    >>> r["clock"], r["clock_ms"], r["interval_ms"]
    ('2:40', 0, 160000)
    """
    text = status_text(str(state["status"]), state.get("period")) if callable(status_text) \
        else status_text
    teams = state["teams"]
    goal = state.get("last_goal") or {}
    pen = state.get("penalty_pending")
    result = state.get("result") or {}
    return {
        "match_id": state.get("match_id"),
        "team_a_name": teams["A"]["name"], "team_a_score": teams["A"]["score"],
        "team_b_name": teams["B"]["name"], "team_b_score": teams["B"]["score"],
        "period": state.get("period"),
        # the clock the screens show: during an interval, its countdown (issue 30)
        "clock": fmt_clock(state.get("interval_ms") if state["status"] == "interval"
                           and state.get("interval_ms") is not None
                           else state.get("clock_ms")) or None,
        "clock_ms": state.get("clock_ms"),
        "running": bool(state.get("running")),
        "status": state["status"],
        "status_text": text,
        "interval_ms": state.get("interval_ms"),
        "last_goal_team": goal.get("team"),
        "last_goal_player": goal.get("player"),
        "last_goal_at": goal.get("at"),
        "penalty_pending": None if not pen else str(pen.get("penalty")),
        "penalty_to": None if not pen else pen.get("to"),
        "winner": result.get("winner"),
        "seq": state["seq"],
        "at": state["at"],
    }
