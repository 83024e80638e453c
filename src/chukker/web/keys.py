"""The timekeeper's console keys: one table for the console's key card, ``/help/keys``
and the documentation site's printable card.

Each binding names the keys as printed, the ``KeyboardEvent.code`` values the
console handles (``static/console.js``; a test reads the script and fails on a
key the table names and the console does not handle, or the other way round),
and what the key does, in English: the msgid of the ``help.po`` catalogues.

>>> [k.keys for k in CONSOLE_KEYS if k.group == Group.CLOCK][:2]
[('Space',), ('W',)]
>>> sorted({k.group.value for k in CONSOLE_KEYS})
['clock', 'dialogs', 'fouls', 'goals', 'shootout']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum


class Group(StrEnum):
    """A block of the key card."""

    CLOCK = "clock"
    GOALS = "goals"
    FOULS = "fouls"
    SHOOTOUT = "shootout"
    DIALOGS = "dialogs"


#: each block's heading (msgid)
GROUP_TITLES: dict[Group, str] = {
    Group.CLOCK: "Clock and play",
    Group.GOALS: "Goals",
    Group.FOULS: "Fouls, time-outs and corrections",
    Group.SHOOTOUT: "Shootout",
    Group.DIALOGS: "In a dialog",
}


@dataclass(frozen=True, slots=True)
class KeyBinding:
    """One line of the key card."""

    group: Group
    #: the keys as printed on the card (several: any of them)
    keys: tuple[str, ...]
    #: ``KeyboardEvent.code`` values the console handles for it ("" for dialog keys)
    codes: tuple[str, ...]
    #: what it does (msgid)
    action: str
    #: when it works, or what to know (msgid; "" for nothing)
    note: str = ""


CONSOLE_KEYS: tuple[KeyBinding, ...] = (
    KeyBinding(
        Group.CLOCK,
        ("Space",),
        ("Space",),
        "Bowl in, start or stop the clock",
        "The button says what Space does now.",
    ),
    KeyBinding(Group.CLOCK, ("W",), ("KeyW",), "Whistle: stop the clock"),
    KeyBinding(Group.CLOCK, ("H",), ("KeyH",), "Free hit: the clock runs again"),
    KeyBinding(
        Group.CLOCK,
        ("U", "Backspace"),
        ("KeyU", "Backspace"),
        "Undo the last event",
        "Press twice: the first press says what would be undone.",
    ),
    KeyBinding(
        Group.CLOCK,
        ("Z",),
        ("KeyZ",),
        "Undo a stop the microphone made",
        "While listening for the whistle, for 15 s after the stop.",
    ),
    KeyBinding(
        Group.GOALS,
        ("1", "2", "3"),
        ("Digit1", "Digit2", "Digit3"),
        "Goal by the first team's player 1, 2 or 3",
        "The number pad works too.",
    ),
    KeyBinding(
        Group.GOALS,
        ("7", "8", "9"),
        ("Digit7", "Digit8", "Digit9"),
        "Goal by the second team's player 1, 2 or 3",
        "The number pad works too.",
    ),
    KeyBinding(
        Group.GOALS,
        ("D",),
        ("KeyD",),
        "Two-point goal: press before the goal key",
        "The next goal counts two.",
    ),
    KeyBinding(
        Group.FOULS,
        ("F",),
        ("KeyF",),
        "Foul: whistle now, details after",
        "The whistle is recorded at once; the dialog asks team, player and penalty.",
    ),
    KeyBinding(Group.FOULS, ("T",), ("KeyT",), "Time-out", "Injury, equipment, mount or other."),
    KeyBinding(
        Group.FOULS,
        ("C",),
        ("KeyC",),
        "Correct the clock",
        "Only while the clock is stopped; shown on every screen and on the sheet.",
    ),
    KeyBinding(
        Group.FOULS,
        ("R",),
        ("KeyR",),
        "Change mounts",
        "While the ball is dead; the team's mounts in use are greyed out.",
    ),
    KeyBinding(Group.SHOOTOUT, ("G",), ("KeyG",), "Shootout: goal"),
    KeyBinding(Group.SHOOTOUT, ("M",), ("KeyM",), "Shootout: miss"),
    KeyBinding(Group.SHOOTOUT, ("X",), ("KeyX",), "Shootout: forfeit the shot"),
    KeyBinding(
        Group.SHOOTOUT,
        ("O",),
        ("KeyO",),
        "Shootout: the batting order",
        "Type the numbers, Tab to the other team, Enter sets it.",
    ),
    KeyBinding(Group.DIALOGS, ("Enter",), (), "Record what the dialog shows"),
    KeyBinding(
        Group.DIALOGS, ("Esc",), (), "Cancel the dialog", "Cancelling a foul keeps its whistle."
    ),
    KeyBinding(Group.DIALOGS, ("A", "B"), (), "Foul dialog: the fouling team"),
    KeyBinding(Group.DIALOGS, ("0", "…", "9"), (), "Foul dialog: the penalty", "0 is Penalty 10."),
)


def key_codes() -> set[str]:
    """Every ``KeyboardEvent.code`` the card names (the number pad's twins included)."""
    out: set[str] = set()
    for k in CONSOLE_KEYS:
        for c in k.codes:
            out.add(c)
            if c.startswith("Digit"):
                out.add("Numpad" + c[5:])
    return out


def card_markdown(gettext: Callable[[str], str] | None = None) -> str:
    """The key card as a Markdown table per block (the documentation site's page).

    >>> "| <kbd>Space</kbd> | Bowl in, start or stop the clock |" in card_markdown()
    True
    """
    tr: Callable[[str], str] = gettext if gettext is not None else str
    out: list[str] = []
    for group in Group:
        rows = [k for k in CONSOLE_KEYS if k.group is group]
        out += [
            f"### {tr(GROUP_TITLES[group])}",
            "",
            "| Key | Does | Good to know |",
            "|---|---|---|",
        ]
        for k in rows:
            keys = " / ".join(f"<kbd>{x}</kbd>" for x in k.keys)
            out.append(f"| {keys} | {tr(k.action)} | {tr(k.note) if k.note else ''} |")
        out.append("")
    return "\n".join(out)
