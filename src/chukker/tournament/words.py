"""A result in words: the one helper every screen, sheet and export uses.

A forfeit (Penalty 9) is not a score: the record's score stays (handicap goals
included) but the result reads "White forfeited", and a double forfeit "both
forfeited" with no winner. The words are English message ids; the web passes a
``gettext`` of the page's language (``web/locales/*/LC_MESSAGES/tournament.po``).

>>> result_words("final", (0, 3), None, ("White", "Blue"), ("White", "Blue"))
'both forfeited'
>>> result_words("final", (0, 3), "Blue", ("White",), ("White", "Blue"))
'White forfeited'
>>> result_words("final", (7, 3), "White", (), ("White", "Blue"))
'7–3'
>>> result_words("in_play", (2, 1), None, (), ("White", "Blue"))
'2–1'
>>> result_words("scheduled", None, None, (), ("White", "Blue")) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Gettext = Callable[[str], str]

#: every message id of this module (the test that checks the catalogues reads it)
MESSAGES = ("both forfeited", "%(team)s forfeited")


def _same(s: str) -> str:
    return s


def forfeit_words(
    forfeited: Sequence[str], teams: Sequence[str], gettext: Gettext = _same
) -> str | None:
    """``forfeited``: the names of the teams that forfeited (of ``teams``, the two)."""
    if not forfeited:
        return None
    if len(set(forfeited)) >= 2 or (len(teams) == 2 and set(teams) <= set(forfeited)):
        return gettext("both forfeited")
    return gettext("%(team)s forfeited") % {"team": forfeited[0]}


def result_words(
    status: str,
    score: Sequence[int] | None,
    winner: str | None,
    forfeited: Sequence[str],
    teams: Sequence[str],
    gettext: Gettext = _same,
) -> str | None:
    """The result of a match in words: the forfeit if any (final), else the score
    (``7–3``), else ``None`` (nothing played yet). ``winner``, ``forfeited`` and
    ``teams`` are names; ``score`` is in the order of ``teams``."""
    if status == "final":
        f = forfeit_words(forfeited, teams, gettext)
        if f is not None:
            return f
    if score is None:
        return None
    return f"{score[0]}–{score[1]}"


def report_forfeits(report: Mapping[str, Any], names: Mapping[str, str]) -> list[str]:
    """The names of the teams that forfeited, from an engine report (team keys)."""
    return [names.get(k, k) for k in report.get("forfeited", []) or []]


def bold_winner(winner: str | None, forfeited: Sequence[str]) -> str | None:
    """The team to show in bold: the winner, none when both forfeited."""
    return None if len(forfeited) >= 2 else winner
