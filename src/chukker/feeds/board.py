"""``chukker board``: a full-screen terminal scoreboard that subscribes to the state topic.

It keeps no clock of its own beyond carrying a running clock on from the
state's ``at`` (epoch ms) between two messages, exactly as an LED board would:
the server publishes the state on every change and once a second while a clock
runs, retained, so a board that starts late shows the match at once. This file
is also the worked example for anyone writing firmware (``docs/feeds.md`` has
the MicroPython sketch for an ESP32 board).

What comes off the broker is not trusted: a payload over :data:`MAX_PAYLOAD`
bytes, or not the state's JSON, is ignored (and counted on the screen); names
are shown as plain text (never Rich markup), cut to 60 characters.

>>> st = {"teams": {"A": {"name": "Aguilas", "score": 3}, "B": {"name": "Búhos", "score": 2}},
...       "status": "in_play", "period": 2, "clock_ms": 350_000, "running": True, "at": 1000}
>>> print(plain(frame(st, now_ms=1000, width=60)).splitlines()[1].strip())
Aguilas  3 - 2  Búhos
>>> clock_now(st, 6_000)
345000
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import time
from collections.abc import Callable, Mapping
from typing import Annotated, Any
from urllib.parse import urlsplit

import typer
from rich.align import Align
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from chukker.feeds.payloads import arena_slug, fmt_clock

MAX_PAYLOAD = 64 * 1024
NAME_MAX = 60

STATUS_WORDS = {
    "pre_match": "Pre-match", "in_play": "In play", "stopped": "Clock stopped",
    "interval": "Interval", "shootout": "Shootout", "final": "Final",
}

# A 3x5 block font for the clock and the score (readable across a tent).
_FONT = {
    "0": ("███", "█ █", "█ █", "█ █", "███"), "1": (" █ ", "██ ", " █ ", " █ ", "███"),
    "2": ("███", "  █", "███", "█  ", "███"), "3": ("███", "  █", "███", "  █", "███"),
    "4": ("█ █", "█ █", "███", "  █", "  █"), "5": ("███", "█  ", "███", "  █", "███"),
    "6": ("███", "█  ", "███", "█ █", "███"), "7": ("███", "  █", "  █", "  █", "  █"),
    "8": ("███", "█ █", "███", "█ █", "███"), "9": ("███", "█ █", "███", "  █", "███"),
    ":": ("   ", " █ ", "   ", " █ ", "   "), "-": ("   ", "   ", "███", "   ", "   "),
    " ": ("   ",) * 5,
}


def big(text: str) -> str:
    """``text`` (digits, ``:``, ``-``) in the block font, five lines.

    >>> print(big("1:0"))
     █        ███
    ██    █   █ █
     █        █ █
     █    █   █ █
    ███       ███
    """
    rows = ["  ".join(_FONT.get(ch, _FONT[" "])[r] for ch in text) for r in range(5)]
    return "\n".join(r.rstrip() for r in rows)


def _clean(s: Any) -> str:
    text = "".join(ch for ch in str(s if s is not None else "") if ch.isprintable())
    return text[:NAME_MAX]


def clock_now(state: Mapping[str, Any], now_ms: int) -> int | None:
    """The clock as of ``now_ms``: carried on from the state's ``at`` while it runs."""
    ms = state.get("clock_ms")
    if not isinstance(ms, int | float):
        return None
    if state.get("running") and isinstance(state.get("at"), int | float):
        ms -= max(0, now_ms - int(state["at"]))
    return max(0, int(ms))


def _same(text: str) -> str:
    return text


def frame(state: Mapping[str, Any] | None, now_ms: int, width: int = 80,
          note: str = "", gettext: Callable[[str], str] = _same) -> RenderableType:
    """One screen of the board for ``state`` (``None``: waiting for the first state);
    ``gettext``: the words in the board's language (:func:`chukker.i18n.translations`)."""
    _ = gettext
    if not state:
        return Panel(Align.center(Text("Waiting for the match's state…\n" + note)),
                     title="chukker board")
    teams = state.get("teams") or {}
    a, b = teams.get("A") or {}, teams.get("B") or {}
    sa, sb = int(a.get("score") or 0), int(b.get("score") or 0)
    head = Text.assemble((_clean(a.get("name") or "A"), "bold blue"), f"  {sa} - {sb}  ",
                         (_clean(b.get("name") or "B"), "bold red"), justify="center")
    status = str(state.get("status") or "")
    words = _(STATUS_WORDS[status]) if status in STATUS_WORDS else _clean(status)
    if status in ("in_play", "stopped") and state.get("period"):
        words = f"{_('Period')} {_clean(state['period'])} · {words}"
    clock = clock_now(state, now_ms)
    interval = state.get("interval_ms")
    if status == "interval" and isinstance(interval, int | float):
        left = max(0, int(interval) - max(0, now_ms - int(state.get("at") or now_ms)))
        words = f"{words} {fmt_clock(left)}"
    parts: list[RenderableType] = [head, Text(" ")]
    if width >= 40:
        parts.append(Align.center(Text(big(f"{sa}-{sb}"), style="bold")))
        parts.append(Text(" "))
    clock_text = fmt_clock(clock) or "--:--"
    style = "bold green" if state.get("running") else "bold yellow"
    parts.append(Align.center(Text(big(clock_text) if width >= 40 else clock_text, style=style)))
    parts.append(Text(words, justify="center"))
    goal = state.get("last_goal")
    if isinstance(goal, Mapping):
        who = teams.get(goal.get("team")) or {}
        parts.append(Text(f"{_('Goal')}: {_clean(who.get('name') or goal.get('team'))}"
                          f" No. {_clean(goal.get('player'))}", justify="center"))
    pen = state.get("penalty_pending")
    if isinstance(pen, Mapping):
        to = teams.get(pen.get("to")) or {}
        parts.append(Text(f"{_('Penalty')} {_clean(pen.get('penalty'))} → "
                          f"{_clean(to.get('name') or pen.get('to'))}",
                          justify="center", style="bold"))
    result = state.get("result")
    if isinstance(result, Mapping) and result.get("winner"):
        w = teams.get(result["winner"]) or {}
        parts.append(Text(f"{_('Winner')}: {_clean(w.get('name') or result['winner'])}",
                          justify="center", style="bold"))
    if note:
        parts.append(Text(note, justify="center", style="dim"))
    return Panel(Group(*parts), title="chukker board", subtitle=_clean(state.get("match_id")))


def plain(r: RenderableType, width: int = 80) -> str:
    """``r`` as plain text (tests and ``--once``)."""
    c = Console(width=width, record=True, color_system=None, file=io.StringIO())
    c.print(r)
    out = c.export_text()
    return out.replace("│", " ").replace("╭", " ").replace("╮", " ").replace(
        "╰", " ").replace("╯", " ").replace("─", " ")


def parse(payload: bytes) -> dict[str, Any] | None:
    """A state message, or ``None`` for anything that is not one.

    >>> parse(b'{"teams": {}, "status": "final"}')["status"], parse(b"[1]"), parse(b"\\xff")
    ('final', None, None)
    """
    if len(payload) > MAX_PAYLOAD:
        return None
    try:
        doc = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("teams", {}), dict):
        return None
    return doc


def topic_for(prefix: str, match_id: str | None, arena: str | None) -> str:
    """>>> topic_for("chukker", "m1", None), topic_for("c", None, "Arena 1")
    ('chukker/match/m1/state', 'c/arena/arena-1/state')
    """
    if arena:
        return f"{prefix}/arena/{arena_slug(arena)}/state"
    return f"{prefix}/match/{match_id}/state"


async def follow(url: str, topic: str, console: Console, *, once: bool = False,
                 timeout: float | None = None, user: str | None = None,
                 password: str | None = None, gettext: Callable[[str], str] = _same) -> int:
    """Show the board until interrupted (``once``: print the first state and return)."""
    import aiomqtt
    from rich.live import Live

    u = urlsplit(url)
    tls = u.scheme == "mqtts"
    state: dict[str, Any] | None = None
    ignored = 0
    note = f"connecting to {u.hostname}:{u.port or (8883 if tls else 1883)} …"
    deadline = None if timeout is None else time.monotonic() + timeout

    def now() -> int:
        return time.time_ns() // 1_000_000

    async def listen() -> None:
        nonlocal state, ignored, note
        backoff = 0.5
        while True:
            try:
                import ssl

                async with aiomqtt.Client(
                        u.hostname or "127.0.0.1", u.port or (8883 if tls else 1883),
                        username=user or u.username, password=password or u.password,
                        tls_context=ssl.create_default_context() if tls else None) as c:
                    await c.subscribe(topic, qos=1)
                    note, backoff = "", 0.5
                    async for m in c.messages:
                        body = m.payload if isinstance(m.payload, bytes) else b""
                        doc = parse(body)
                        if doc is None:
                            ignored += 1
                            note = f"{ignored} message(s) ignored (not a state)"
                            continue
                        state = doc
                        if once:
                            return
            except aiomqtt.MqttError as e:
                note = f"broker away ({e}); retrying"
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 10)

    task = asyncio.create_task(listen())
    try:
        if once:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                await asyncio.wait_for(asyncio.shield(task), remaining)
            except TimeoutError:
                console.print(f"no state on {topic} within {timeout} s ({note or 'connected'})")
                return 1
            console.print(frame(state, now(), console.width, gettext=gettext))
            return 0
        with Live(frame(state, now(), console.width, gettext=gettext), console=console,
                  screen=True, auto_refresh=False) as live:
            while not task.done():
                live.update(frame(state, now(), console.width, note, gettext), refresh=True)
                await asyncio.sleep(0.1)
        return 0
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


def register(app: typer.Typer) -> None:
    @app.command("board")
    def board(
        match_id: Annotated[str | None, typer.Argument(
            help="The match to show (its id, as in /m/<id>).")] = None,
        arena: Annotated[str | None, typer.Option(
            "--arena", help="Follow an arena's current match (tournaments) instead.")] = None,
        url: Annotated[str | None, typer.Option(
            "--url", help="The broker (default: the settings' mqtt.url).")] = None,
        prefix: Annotated[str | None, typer.Option(
            "--prefix", help="Topic prefix (default: the settings' mqtt.prefix).")] = None,
        config: Annotated[str | None, typer.Option(
            "--config", help="A settings file (else $CHUKKER_CONFIG).")] = None,
        once: Annotated[bool, typer.Option(
            "--once", help="Print the current state once and exit (scripts, tests).")] = False,
        timeout: Annotated[float, typer.Option(
            "--timeout", help="With --once: seconds to wait for a state.")] = 10.0,
        lang: Annotated[str, typer.Option(
            "--lang", help="Language of the board's words: en, es or it.")] = "en",
    ) -> None:
        """A full-screen terminal scoreboard that follows a match over MQTT."""
        from chukker.config import ConfigError, load

        if (match_id is None) == (arena is None):
            typer.echo("chukker board: name a MATCH_ID or --arena NAME (one of the two)",
                       err=True)
            raise typer.Exit(2)
        if match_id is not None and not match_id.replace("-", "").replace("_", "").isalnum():
            typer.echo(f"chukker board: {match_id!r} is not a match id", err=True)
            raise typer.Exit(2)
        try:
            s = load(file=config if config else True)
        except ConfigError as e:
            typer.echo(f"chukker board: {e}", err=True)
            raise typer.Exit(2) from None
        broker = url or s.mqtt.url
        if not broker or urlsplit(broker).scheme not in ("mqtt", "mqtts"):
            typer.echo("chukker board: no broker: give --url mqtt://host:1883 or set mqtt.url",
                       err=True)
            raise typer.Exit(2)
        topic = topic_for((prefix or s.mqtt.prefix).rstrip("/"), match_id, arena)
        from chukker.i18n import LANGUAGES, translations

        if lang not in LANGUAGES:
            typer.echo(f"chukker board: --lang {lang!r} is not one of {', '.join(LANGUAGES)}",
                       err=True)
            raise typer.Exit(2)
        console = Console()
        try:
            code = asyncio.run(follow(broker, topic, console, once=once,
                                      timeout=timeout if once else None,
                                      user=s.mqtt.user, password=s.mqtt.password,
                                      gettext=translations(lang).gettext))
        except KeyboardInterrupt:
            code = 0
        raise typer.Exit(code)
