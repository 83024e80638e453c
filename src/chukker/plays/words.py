"""Evidence in words: a candidate's structured evidence as one sentence in en, es or it.

The English sentence is the message id; Spanish and Italian come from the
``plays.po`` catalogs (``chukker/web/locales/<lang>/LC_MESSAGES/plays.po``),
merged with the other web catalogs. Numbers are written with the language's
decimal sign.

>>> from chukker.plays.candidates import Candidate, Clause
>>> c = Candidate(Clause.R13B, "white", 2, 2.0, 3.2, {"against": "blue:1", "crossings": 3,
...     "span_s": 1.2, "min_ahead_yd": 4.2, "max_ahead_yd": 6.1, "galloping_speed_yd_s": 14.0})
>>> describe(c)
"White 2 crossed Blue 1's line 3 times within 1.2 s, 4 to 6 yards ahead, Blue 1 at 14 yd/s."
>>> describe(c, "it")[:59]
'Bianco 2 ha tagliato la linea di Blu 1 3 volte in 1,2 s, da'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chukker.plays.candidates import Candidate, Clause, Evidence

#: team colours named in tracking files, translated as words
TEAM_WORDS = {
    "blue": "Blue",
    "white": "White",
    "red": "Red",
    "black": "Black",
    "green": "Green",
    "yellow": "Yellow",
    "orange": "Orange",
}

#: every sentence, by clause and variant; the English text is the message id
SENTENCES: dict[str, str] = {
    "12": "%(player)s entered %(holder)s's right of way %(distance)s yards ahead of him, "
    "moving across at %(lateral)s yd/s, %(holder)s at %(holder_speed)s yd/s.",
    "13d": "%(player)s rode %(pushed)s into %(holder)s's right of way, "
    "%(distance)s yards ahead of %(holder)s.",
    "13a steep": "%(player)s met %(opponent)s at %(angle)s degrees, where %(max_angle)s is the "
    "most that is safe at this speed, closing at %(closing)s yd/s.",
    "13a unequal": "%(player)s rode into %(opponent)s at %(speed)s yd/s against "
    "%(opponent_speed)s yd/s, a difference of %(diff)s yd/s.",
    "13a both": "%(player)s met %(opponent)s at %(angle)s degrees (at most %(max_angle)s is "
    "safe) and at unequal speed: %(speed)s yd/s against %(opponent_speed)s yd/s.",
    "13b": "%(player)s crossed %(against)s's line %(crossings)s times within %(span)s s, "
    "%(min_ahead)s to %(max_ahead)s yards ahead, %(against)s at %(gallop)s yd/s.",
    "13b here": "%(player)s crossed %(against)s's line %(crossings)s times within %(span)s s, "
    "%(min_ahead)s yards ahead, %(against)s at %(gallop)s yd/s.",
    "13f": "%(player)s joined %(teammate)s in riding off %(victim)s: "
    "two on one for %(duration)s s.",
    "13g turned": "%(player)s rode at %(opponent)s at %(closing)s yd/s and came within "
    "%(distance)s yards without contact; %(opponent)s pulled out, turning %(turn)s degrees.",
    "13g slowed": "%(player)s rode at %(opponent)s at %(closing)s yd/s and came within "
    "%(distance)s yards without contact; %(opponent)s pulled out, losing %(drop)s%% of his speed.",
    "13h": "%(player)s made contact with %(striker)s during his stroke, %(distance)s yards apart.",
    "13i": "%(player)s put his horse's head into %(opponent)s: %(aim)s degrees off the line "
    "between them, closing at %(closing)s yd/s.",
    "13j side": "%(player)s rode %(opponent)s into the side wall: %(wall_distance)s yards "
    "from it, moving towards it at %(approach)s yd/s.",
    "13j end": "%(player)s rode %(opponent)s into the end wall: %(wall_distance)s yards "
    "from it, moving towards it at %(approach)s yd/s.",
    "13k": "%(player)s kept the ball at a walk for %(duration)s s, marked by %(marker)s "
    "at %(marking)s yards.",
    "13k 5b": "%(player)s kept the ball at a walk for %(duration)s s in his own half, "
    "marked by %(marker)s at %(marking)s yards: Penalty 5b.",
}


def _gettext(lang: str) -> Callable[[str], str]:
    if lang == "en":
        return lambda s: s
    from chukker.i18n import translations

    return translations(lang).gettext


def number(v: Evidence, lang: str, digits: int = 1) -> str:
    """``v`` rounded to ``digits`` decimals (none when whole), with the language's sign."""
    from babel.numbers import format_decimal

    if not isinstance(v, int | float) or isinstance(v, bool):
        return "?"
    pattern = "0" if digits == 0 else "0." + "#" * digits
    return str(format_decimal(round(float(v), digits), format=pattern, locale=lang))


def team_name(team: str, lang: str) -> str:
    """``blue`` as "Blue" (``Azul``, ``Blu``); other names capitalised."""
    word = TEAM_WORDS.get(team)
    return _gettext(lang)(word) if word else team.replace("_", " ").title()


def player_name(entity: str, lang: str, names: Mapping[str, str] | None = None) -> str:
    """``blue:1`` as "Blue 1" (``Azul 1``...), or as ``names`` says."""
    if names and entity in names:
        return names[entity]
    team, _, num = entity.partition(":")
    return f"{team_name(team, lang)} {num}".strip()


def variant(c: Candidate) -> str:
    """The key of :data:`SENTENCES` that says ``c``."""
    ev = c.evidence
    if c.clause is Clause.R13A:
        reason = str(ev.get("reason", ""))
        if "steep" in reason and "unequal" in reason:
            return "13a both"
        return "13a steep" if "steep" in reason else "13a unequal"
    if c.clause is Clause.R13B:
        same = number(ev.get("min_ahead_yd"), "en", 0) == number(ev.get("max_ahead_yd"), "en", 0)
        return "13b here" if same else "13b"
    if c.clause is Clause.R13G:
        return "13g turned" if ev.get("pull_out") == "turned" else "13g slowed"
    if c.clause is Clause.R13J:
        return "13j end" if ev.get("wall") == "end" else "13j side"
    if c.clause is Clause.R13K:
        return "13k 5b" if ev.get("penalty") == "5b" else "13k"
    return str(c.clause)


def describe(c: Candidate, lang: str = "en", names: Mapping[str, str] | None = None) -> str:
    """One sentence saying what was measured, in ``lang``."""
    ev = c.evidence

    def who(key: str) -> str:
        v = ev.get(key)
        return player_name(str(v), lang, names) if isinstance(v, str) else "?"

    def n(key: str, digits: int = 1) -> str:
        return number(ev.get(key), lang, digits)

    values: dict[str, Any] = {
        "player": player_name(c.who, lang, names),
        "holder": who("holder"),
        "pushed": who("pushed"),
        "opponent": who("opponent"),
        "against": who("against"),
        "teammate": who("teammate"),
        "victim": who("victim"),
        "striker": who("striker"),
        "marker": who("marker"),
        "distance": n("min_distance_yd") if "min_distance_yd" in ev else n("distance_yd"),
        "lateral": n("lateral_speed_yd_s"),
        "holder_speed": n("holder_speed_yd_s", 0),
        "angle": n("angle_deg", 0),
        "max_angle": n("max_safe_angle_deg", 0),
        "closing": n("closing_speed_yd_s"),
        "speed": n("speed_yd_s"),
        "opponent_speed": n("opponent_speed_yd_s"),
        "diff": n("speed_diff_yd_s"),
        "crossings": n("crossings", 0),
        "span": n("span_s"),
        "min_ahead": n("min_ahead_yd", 0),
        "max_ahead": n("max_ahead_yd", 0),
        "gallop": n("galloping_speed_yd_s", 0),
        "duration": n("duration_s"),
        "turn": n("turn_deg", 0),
        "drop": number(100 * float(ev.get("speed_drop") or 0.0), lang, 0),
        "aim": n("aim_deg", 0),
        "wall_distance": n("wall_distance_yd"),
        "approach": n("approach_speed_yd_s"),
        "marking": n("marking_distance_yd"),
    }
    return _gettext(lang)(SENTENCES[variant(c)]) % values
