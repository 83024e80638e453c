"""Errors of the engine. All subclass :class:`ValueError`.

Every refusal has a stable ``code`` (snake_case) and ``params`` (JSON values);
its English text is ``MESSAGES[code]`` formatted with the params, so any screen
can say it in its own language from the code and the params alone
(:func:`chukker.web.refusals.refusal_message`).

Formatting (:func:`render`): a parameter ``X_ms`` (milliseconds) is also
available as ``X`` in seconds (``"510.000 s"``); a list is joined with commas;
a parameter ``cause`` holding ``{"code": ..., "params": ...}`` renders as that
refusal's own message.

>>> message("ball_dead", {"period": 2, "since_ms": 510000})
'the ball is dead: period 2 ended at 510.000 s'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def fmt_s(ms: int) -> str:
    """Milliseconds as seconds with three decimals: ``fmt_s(512300) == '512.300 s'``."""
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    return f"{sign}{ms // 1000}.{ms % 1000:03d} s"


#: English templates, one per refusal code (``str.format`` with the params).
MESSAGES: dict[str, str] = {
    # the event itself
    "not_an_object": "an event must be an object",
    "at_invalid": "'at' must be a finite number of seconds from 0, got {value}",
    "at_precision": "'at' has more than millisecond precision: {value}",
    "time_backwards": "time goes backwards: {at} is before {last}",
    "unknown_event_type": "unknown event type {value}",
    "field_invalid": "'{field}' must be {expected}, got {value}",
    "field_missing": "'{field}' is missing",
    # teams and players
    "team_missing": "'{field}' is missing (teams are {a} and {b})",
    "unknown_team": "unknown team {value} (teams are {a} and {b})",
    "unknown_player": "player {value} is not on {team}'s sheet "
    "(arena teams have players 1-3 and their alternates, Rule 3)",
    "player_removed": "{team} {player} was removed from the game (Penalty {penalty})",
    "player_suspended": "{team} {player} is removed until period {until_period} (Penalty 10)",
    "player_retired": "{team} {player} has retired from the game ({clause})",
    "player_replaced": "{team} {player} has been replaced by {by}",
    "player_out_equipment": "{team} {player} is out until the equipment is put right "
    "(Penalty 8); record 'return'",
    "player_not_on_field": "{team} {player} is an alternate who has not come in",
    # the state of play
    "match_over": "the match is over at {end} ({decided_by}): the record is locked (Rule 18)",
    "not_started": "the ball is dead: the match has not started",
    "ball_dead": "the ball is dead: period {period} ended at {since}",
    "play_stopped": "the ball is dead: play is stopped; restart with {restart}",
    "in_shootout": "the match is in the shootout: record shots with 'shot'",
    "ball_live": "{action} only while the ball is dead",
    "interval_running": "the interval after period {period} runs until {until} (Rule 5)",
    "extra_interval_running": "the interval before extra period {period} runs until {until} "
    "(Rule 5)",
    "shootout_interval_running": "the interval before the shootout runs until {until} (Rule 5)",
    "round_interval_running": "the interval between shootout rounds runs until {until} (Rule 5)",
    "penalty_pending": "a penalty {penalty} free hit is pending: play restarts with free_hit",
    "no_bowl_in_in_shootout": "the shootout has no bowl-in: record shots with 'shot'",
    "timeout_reason_missing": "a time-out needs a 'reason' (injury, equipment, mount, ...)",
    # goals and penalties
    "no_two_point_line": "two_point: this match has no two-point line (options.two_point_line)",
    "penalty_invalid": "penalty {value}: Rule 9 penalties are 1-10, 5a or 5b",
    "penalty_not_in_shootout": "penalty {penalty} cannot be taken in the shootout",
    "penalty_before_shootout": "penalty {penalty}: no period follows in which to take it "
    "(shootout next)",
    "spot_invalid": "spot {value}: [x, y] in yards inside the 100 x 50 arena",
    "p6_without_free_hit": "penalty 6 needs a penalty 2, 3, 4 or 5 free hit earlier in this "
    "period",
    "p7_not_designable": "penalty 7: {team} {player} cannot be designated; eligible: {eligible}",
    "p7_one_remedy": "penalty 7: {team}'s captain chooses a substitute or the removal of a "
    "fouling player, not both (Rule 9)",
    "nothing_to_designate": "no Penalty 7 designation is pending for {team}",
    "already_forfeited": "{team} has already forfeited",
    "no_free_hit_pending": "no free hit is pending: only a foul with penalty 2-5 awards one",
    # roster
    "not_an_alternate": "{team} {player} is not an alternate who may come in",
    "substitute_for_removed": "{team} {player} was removed: no substitute may take the place "
    "(Penalty {penalty})",
    "nothing_to_return": "{team} {player} is not out for equipment (Penalty 8)",
    # mounts (record 1.2)
    "mount_not_listed": "mount {mount} is not on {team}'s list of mounts (Rule 2: no mount may "
    "be played by more than one team)",
    "mount_ridden_by_teammate": "mount {mount} is ridden by {team} {rider} now (Rule 5: players "
    "switch horses with their own team, one rider to a mount): change {rider}'s mount first",
    "mount_out_of_game": "mount {mount} of {team} was removed from the game ({reason}, "
    "{clause})",
    "mount_disqualified": "mount {mount} of {team} is disqualified (Penalty 8)",
    "mount_rider_may_not_play": "{team} {player} may not play, so rides no mount: {cause}",
    "shootout_mount_not_final_period": "Rule 5: the mounts in the shootout are those {team} "
    "used in period {period}; {mount} was not: record umpire_consent for an injury or fatigue",
    "mount_change_needed": "{team} {player} must change mounts before play resumes: {mount} "
    "left the game ({clause})",
    "mount_swap_without_partner": "a swap puts {team} {player} on {mount} and its rider on "
    "{player}'s mount: {mount} must be ridden by a teammate now and {player} ride another "
    "(Rule 5: players switch horses with members of their own team)",
    "mount_reason_invalid": "reason {value}: a mount leaves the game for vice, blood, runaway, "
    "injury or other",
    "whistle_source_invalid": "source {value}: a whistle's source is one of {known} (audio: "
    "heard by the console's microphone) or absent (a key press)",
    # the clock
    "clock_not_stopped": "the clock can be corrected only while it is stopped in a period",
    "clock_out_of_range": "remaining {remaining} is outside the period (0 to {length})",
    # shootout
    "no_shootout": "there is no shootout: it follows a tie when options.tiebreak is 'shootout'",
    "shootout_order_fixed": "the shootout order is fixed once the first shot is hit",
    "shootout_order_invalid": "'order' must list the hitters of both teams, {a} and {b}",
    "order_not_a_list": "order.{team} must be a list of player numbers",
    "order_one_player": "order.{team}: one player of {eligible} hits "
    "(options.shootout_players is 'one')",
    "order_every_player": "order.{team}: every player of the team hits once per round, each "
    "once: {eligible}",
    "order_missing": "record the shootout order ('shootout_order') before the first shot",
    "not_your_turn": "it is {team} {player}'s turn (round {round})",
    "shot_result_invalid": "result {value}: a shot is 'goal', 'miss' or 'forfeit'",
    "already_moved": "the ball is already on the 15-yard line",
    "shootout_not_started": "the shootout has not started",
    "move_not_yet": "both teams must first fail with {need} attempts by each member: "
    "{team} {player} has {count}",
    "move_reached_wall": "{team} {player} reached the end wall from the 25-yard line: "
    "the ball is not moved",
    "not_in_edition": "{feature} is not in the {edition} rules; it comes with {introduced_in}",
    # undo
    "undo_target_invalid": "'event' must be the position of an earlier event, got {value}",
    "undo_not_earlier": "event {target} is not an earlier event (this is event {index})",
    "undo_target_refused": "event {target} was refused; there is nothing to undo",
    "undo_already_undone": "event {target} is already undone",
    "undo_leaves_refused": "undoing event {target} would leave event {event} ({type} at {at}) "
    "refused: {cause}",
    "undo_moves_later": "undoing event {target} would move event {event} ({type} at {at}) "
    "from period {from_period} to period {to_period}",
    "undo_moves_before_start": "undoing event {target} would move event {event} ({type} at "
    "{at}) from period {from_period} to before the first period",
    "undo_moves_past_end": "undoing event {target} would move event {event} ({type} at {at}) "
    "across the end of period {period}",
    "undo_takes_restart": "undoing event {target} would take the restart of play from event "
    "{event} ({type} at {at}): the clock would run through the stoppage it ended",
    # the set-up
    "setup_invalid": "the set-up is not valid: {path}: {detail}",
    "setup_not_an_object": "{path}: must be an object",
    "setup_not_a_string": "{path}: must be a string",
    "setup_not_bool": "{path}: must be true or false, got {value}",
    "setup_not_whole": "{path}: must be a whole number, got {value}",
    "setup_unknown_value": "{path}: unknown value {value} (one of {allowed})",
    "setup_format": "{path}: unsupported format {value} (expected {expected})",
    "setup_unknown_edition": "{path}: unknown edition {value} (known: {known})",
    "setup_teams_missing": "{path}: missing: a record has exactly two teams",
    "setup_teams_count": "{path}: a match has exactly two teams, got {got}",
    "setup_team_not_an_object": "{path}: must be an object with name, captain and players",
    "setup_player_not_an_object": "{path}: must be an object with no, name and handicap",
    "setup_alternates_list": "{path}: must be a list of at most {max} players",
    "setup_mounts_list": "{path}: must be a list of at most {max} mounts",
    "setup_mount_not_an_object": "{path}: must be an object with id, name and owner",
    "setup_first_defends": "{path}: must give the end of both teams, e.g. "
    "{{{a}: 'west', {b}: 'east'}}",
    "setup_practice_shape": '{path}: must be {{"period_s": N, "interval_s": M}}',
    "setup_practice_range": "{path}: must be a number of seconds from {min} to {max}",
    "setup_practice_precision": "{path}: at most millisecond precision",
    # the new-match form's own fields (chukker.web.pages.matches)
    "setup_form_not_whole": "{path}: {value} is not a whole number",
    "setup_form_captain": "{path}: {value} is not a player number",
    "team_key": "{path}: a team key is a short identifier (letters, digits, - or _)",
    "players_count": "{path}: Rule 3: an arena team has {count} players numbered 1-{count}, "
    "got {got}",
    "players_numbering": "{path}: Rule 3: players are numbered 1-{count}, each once; got {got}",
    "captain_missing": "{path}: Rule 3: each team designates one captain",
    "captain_not_a_player": "{path}: Rule 3: the captain is one of players 1-{count}",
    "alternate_number": "{path}: Rule 3: numbers are 1-99 and unique within the team",
    "opposite_ends": "{path}: the two teams must defend opposite ends",
    "mount_two_teams": "{path}: Rule 2: no mount may be played by more than one team; {mount} "
    "is listed by {a} and {b}",
    "mount_id": "{path}: a mount's id is 1-32 characters of a-z, 0-9 and -",
    "mount_listed_twice": "{path}: mount {mount} is listed twice",
    # club rules (record 1.3, chukker.rules.club)
    "club_edition_missing": "{path}: club rules need an 'edition' object: base, name and the "
    "values the club changes",
    "club_edition_text": "{path}: paste or load the club's edition (TOML or JSON, at most {max} "
    "characters)",
    "club_edition_without_club": "{path}: an edition object goes with \"rules\": \"club\"",
    "club_unknown_key": "{path}: not a parameter a club may set",
    "club_unknown_key_near": "{path}: not a parameter a club may set; did you mean "
    "{suggestion}?",
    "club_value_unused": "{path}: {edition} has no use for this value: it serves {feature}, "
    "which that edition does not have",
    "club_base": "{path}: must be one of the known editions ({known})",
    "club_name": "{path}: the club's name for its rules, 1-{max} characters",
    "club_name_markup": "{path}: a name has no markup nor control characters",
    "club_plan_keys": "{path}: must be an object of count, length_s and intervals_s",
    "club_count_range": "{path}: must be a whole number from {min} to {max}",
    "club_value_range": "{path}: must be a number of seconds from {min} to {max}",
    "club_value_precision": "{path}: at most millisecond precision",
    "club_intervals_list": "{path}: must be a list of seconds",
    "club_intervals_count": "{path}: {count} periods have {want} intervals, got {got}",
    "club_without_list": "{path}: must be a list of the base's features ({known})",
    "club_feature_not_in_base": "{path}: {value} is not a feature of {edition}",
    "club_period_short": "{path}: a period must be longer than the late-penalty reset ({reset})",
    "club_past_period_end": "{path}: must be shorter than the period it falls in ({length})",
    # record 1.3: the grooms' plan
    "setup_plan_shape": "{path}: a plan maps player numbers to lists of mount ids",
    "plan_player_unknown": "{path}: {team} has no player {player}",
    "plan_mount_not_listed": "{path}: mount {mount} is not on {team}'s list of mounts",
    "plan_mount_not_listed_near": "{path}: {mount} is not in {team}'s string: did you mean "
    "{near}?",
    "plan_mount_other_team": "{path}: Rule 2: no mount may be played by more than one team; "
    "{mount} is on {other}'s list, not {team}'s",
}


#: The same refusals when a club's value set the instant (params hold ``club``, the name
#: of the club's rules): they cite the club's rules, not Rule 5 (record 1.3).
CLUB_MESSAGES: dict[str, str] = {
    "interval_running": "the interval after period {period} runs until {until} "
    "(club rules: {club})",
    "extra_interval_running": "the interval before extra period {period} runs until {until} "
    "(club rules: {club})",
    "shootout_interval_running": "the interval before the shootout runs until {until} "
    "(club rules: {club})",
    "round_interval_running": "the interval between shootout rounds runs until {until} "
    "(club rules: {club})",
    # notices that follow from a club's value
    "injury_disabled": "injury time-out longer than {limit} (club rules: {club}): {team} "
    "{player} is disabled",
    "injury_disabled_unnamed": "injury time-out longer than {limit} (club rules: {club}): the "
    "injured player is disabled",
    "shootout_tied_no_round": "the shootout is tied and the club's rules ({club}) play no "
    "further round",
}


def template_of(code: str, params: Mapping[str, Any]) -> str | None:
    """The English template of ``code`` with these ``params`` (a club's own when they name
    one), or ``None`` for an unknown code."""
    if "club" in params:
        t = CLUB_MESSAGES.get(code)
        if t is not None:
            return t
    return MESSAGES.get(code) or NOTICES.get(code)


#: English templates of the report's ``notices`` (what the engine noted, not refusals).
NOTICES: dict[str, str] = {
    "mount_change_long": "the mount change at the split took {took}, more than {limit}",
    "clock_reset": "less than {seconds} s left ({left}): clock reset to {reset} before the "
    "free hit",
    "injury_disabled": "injury time-out longer than 15 minutes: {team} {player} is disabled",
    "injury_disabled_unnamed": "injury time-out longer than 15 minutes: the injured player is "
    "disabled",
    "p6_goal_stands": "penalty 6: a goal was scored from the free hit; no retake",
    "p6_goal_cancelled": "penalty 6: the goal of event {goal_event} is not counted",
    "p7_name_disabled": "penalty 7: name the disabled player ('disabled') to derive the removal",
    "p7_unnamed_substitute": "penalty 7: {team} brings a substitute for player {player}",
    "p7_designate": "penalty 7: {team}'s captain designates one of {fouling} {candidates} to "
    "leave the game",
    "p8_may_return": "{team} {player} may return once the equipment is fixed",
    "shootout_tied_no_round": "the shootout is tied and the edition has no further round",
}


def _value(v: Any) -> str:
    if isinstance(v, list | tuple):
        return ", ".join(_value(x) for x in v)
    return str(v)


def render(
    template: str,
    params: Mapping[str, Any],
    cause: Callable[[str, Mapping[str, Any]], str] | None = None,
) -> str:
    """``template`` formatted with ``params`` (see the module's formatting rules)."""
    vals: dict[str, str] = {}
    for k, v in params.items():
        if k == "cause" and isinstance(v, Mapping):
            sub = v.get("params", {})
            code = str(v.get("code", ""))
            vals[k] = cause(code, sub) if cause else message(code, sub)
            continue
        vals[k] = _value(v)
        if k.endswith("_ms") and isinstance(v, int) and not isinstance(v, bool):
            vals[k[:-3]] = fmt_s(v)
    try:
        return template.format(**vals)
    except (KeyError, IndexError, ValueError):
        return template


def message(code: str, params: Mapping[str, Any]) -> str:
    """The English text of a refusal (or of a notice)."""
    return render(template_of(code, params) or code, params)


#: set-up codes with no sentence of their own: their ``detail`` is the engine's English
DETAIL_ONLY: frozenset[str] = frozenset({"setup_invalid"})


def setup_sentence(
    code: str, params: Mapping[str, Any], gettext: Callable[[str], str] | None = None
) -> str | None:
    """A :class:`SetupError`'s sentence (``{path}: ...``) from its code and params, in the
    language of ``gettext`` (English without one); ``None`` for a code with no sentence of
    its own (:data:`DETAIL_ONLY`, whose ``detail`` is English) or an unknown one.

    >>> setup_sentence("setup_not_bool", {"path": "options.handicap", "value": "'yes'"})
    "options.handicap: must be true or false, got 'yes'"
    """
    template = MESSAGES.get(code)
    if template is None or code in DETAIL_ONLY:
        return None
    return render(gettext(template) if gettext is not None else template, params)


def show(value: Any) -> str:
    """A raw (possibly hostile) input value for a message: its repr, at most 60 characters."""
    try:
        r = repr(value)
    except Exception:  # pragma: no cover - repr of a JSON value does not fail
        r = "?"
    return r if len(r) <= 60 else r[:57] + "..."


class SetupError(ValueError):
    """The record's header (rules, options, teams) is not a valid arena match.

    ``path`` names the offending field, e.g. ``teams.A.players``; ``code`` and
    ``params`` say why (``params`` always holds ``path``).
    """

    def __init__(
        self, path: str, reason: str, code: str = "setup_invalid", **params: Any
    ) -> None:
        self.path = path
        self.reason = reason
        self.code = code
        self.params: dict[str, Any] = {"path": path, **params}
        if code == "setup_invalid":
            self.params.setdefault("detail", reason)
        super().__init__(f"{path}: {reason}")


class EngineError(ValueError):
    """An operator event was refused.

    ``index`` is the event's position in the record counting from 1,
    ``at_ms`` its time, ``code`` and ``params`` why it was refused and
    ``reason`` the English text of that.

    >>> e = EngineError(14, "goal", 512300, "ball_dead", {"period": 2, "since_ms": 510000})
    >>> str(e)
    'event 14 (goal at 512.300 s): the ball is dead: period 2 ended at 510.000 s'
    >>> e.code, e.params["period"]
    ('ball_dead', 2)
    """

    def __init__(
        self,
        index: int,
        type_: str,
        at_ms: int | None,
        code: str,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.index = index
        self.type = type_
        self.at_ms = at_ms
        self.code = code
        self.params: dict[str, Any] = dict(params or {})
        self.reason = message(code, self.params)
        where = f"{type_} at {fmt_s(at_ms)}" if at_ms is not None else type_
        super().__init__(f"event {index} ({where}): {self.reason}")

    def to_dict(self) -> dict[str, Any]:
        """The refusal as JSON: event number, code, params and English message."""
        return {
            "event": self.index,
            "code": self.code,
            "params": self.params,
            "message": self.reason,
        }
