"""``chukker board``: the terminal scoreboard that subscribes to the state topic."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import aiomqtt
from hypothesis import given
from hypothesis import strategies as st

from chukker.feeds.board import frame, parse, plain
from chukker.feeds.payloads import public_state

STATE = {"teams": {"A": {"name": "Aguilas", "score": 3}, "B": {"name": "Búhos", "score": 2}},
         "status": "in_play", "period": 2, "clock_ms": 350_000, "running": True, "at": 1000,
         "match_id": "m1", "seq": 7}


def test_board_shows_names_score_clock_and_status() -> None:
    text = plain(frame(STATE, now_ms=1000, width=80))
    assert "Aguilas  3 - 2  Búhos" in text
    assert "Period 2 · In play" in text


def test_board_runs_the_clock_on_from_the_states_at() -> None:
    later = plain(frame(STATE, now_ms=1000 + 10_000, width=30))
    assert "5:40" in later  # 350 s less the 10 s since the state's at


def test_board_shows_names_as_text_never_as_markup() -> None:
    hostile = {**STATE, "teams": {"A": {"name": "[bold red]X[/]\x1b[2J", "score": 0},
                                  "B": {"name": "B" * 500, "score": 0}}}
    text = plain(frame(hostile, now_ms=1000, width=200), width=200)
    assert "[bold red]X[/]" in text and "\x1b" not in text
    assert "B" * 61 not in text


def test_board_ignores_what_is_not_a_state() -> None:
    assert parse(b"x" * (70 * 1024)) is None
    assert parse(b'"text"') is None and parse(b"{") is None
    assert parse(json.dumps(STATE).encode()) == STATE


@given(st.binary(max_size=300))
def test_board_never_fails_on_any_payload(data: bytes) -> None:
    doc = parse(data)
    plain(frame(doc, now_ms=0, width=60), width=60)


def test_board_shows_every_public_state_the_feed_makes() -> None:
    from tests.feeds.fake import PRACTICE, FakeService

    class Sink:
        def __init__(self) -> None:
            self.reports: list[dict[str, object]] = []

        def on_state(self, mid: str, seq: int, rep: dict[str, object]) -> None:
            self.reports.append(rep)

        def on_event(self, *a: object) -> None: ...
        def on_horn(self, *a: object) -> None: ...

    sink = Sink()
    svc = FakeService(sink, start_ms=0)
    svc.event(0.0, "bowl_in")
    svc.event(30.0, "goal", team="A", player=1)
    svc.run_to(200.0)
    for rep in sink.reports:
        text = plain(frame(public_state(PRACTICE, rep), now_ms=0, width=80))
        assert "Aguilas" in text


def test_chukker_board_once_prints_the_retained_state(broker_url: str, prefix: str) -> None:
    async def put() -> None:
        async with aiomqtt.Client("127.0.0.1", int(broker_url.rsplit(":", 1)[1])) as c:
            await c.publish(f"{prefix}/match/m1/state",
                            json.dumps({**STATE, "at": time.time_ns() // 1_000_000}),
                            qos=1, retain=True)

    asyncio.run(put())
    try:
        out = subprocess.run(
            [sys.executable, "-m", "chukker.cli", "board", "m1", "--url", broker_url,
             "--prefix", prefix, "--once", "--timeout", "10"],
            capture_output=True, text=True, timeout=60, env={"COLUMNS": "80", "PATH": "/usr/bin",
                                                             **_pythonpath()})
    finally:
        async def clear() -> None:
            async with aiomqtt.Client("127.0.0.1", int(broker_url.rsplit(":", 1)[1])) as c:
                await c.publish(f"{prefix}/match/m1/state", b"", qos=1, retain=True)
        asyncio.run(clear())
    assert out.returncode == 0, out.stderr
    assert "Aguilas  3 - 2  Búhos" in out.stdout


def test_chukker_board_without_a_broker_says_how_to_name_one() -> None:
    out = subprocess.run([sys.executable, "-m", "chukker.cli", "board", "m1"],
                         capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin", **_pythonpath()})
    assert out.returncode == 2 and "--url" in out.stderr


def _pythonpath() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "HOME")}


def test_board_speaks_the_language_asked() -> None:
    from chukker.i18n import translations

    text = plain(frame({**STATE, "status": "stopped"}, now_ms=1000, width=80,
                       gettext=translations("es").gettext))
    assert "Periodo 2 · Reloj detenido" in text
