"""The one registry of chukker's words for its refusals, failures and notices.

Every :class:`chukker.errors.ChukkerError` (and every notice in the engine's report) has
a stable ``code`` and JSON ``params``. Its English sentence is a ``str.format`` template
here, by section (who gives the code); Spanish and Italian are the Babel catalogs
``web/locales/{es,it}/LC_MESSAGES/{refusals,api,tournament-refusals}.po``, whose msgid
is the English template. :func:`chukker.errors.template` finds a code's template;
:func:`chukker.web.refusals.refusal_message` says it in a language.

The sections are data only (this module imports nothing): the engine, which imports only
the rules, reads its own section from here. A code means one thing everywhere but for
two that two sections say in their own words (:data:`SHARED`).

>>> ENGINE["ball_dead"]
'the ball is dead: period {period} ended at {since}'
>>> sorted(SECTIONS)
['API', 'CLUB', 'ENGINE', 'LIMITS', 'NOTICES', 'RECORD', 'TOURNAMENT']
"""

from __future__ import annotations

#: the engine's refusals (``chukker.engine.errors``): one template per code
ENGINE: dict[str, str] = {
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
    # the new-match form's own fields (chukker.web.officials.new_match)
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


#: the same refusals when a club's value set the instant (params hold ``club``,
#: the name of the club's rules): they cite the club's rules, not Rule 5 (record 1.3)
CLUB: dict[str, str] = {
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


#: the engine report's ``notices`` (what the engine noted, not refusals)
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


#: the record's refusals (``chukker.record.errors``)
RECORD: dict[str, str] = {
    "not_well_formed": "the text is not well-formed: {detail}",
    "unreadable": "cannot read {path}: {detail}",
    "not_utf8": "{path} is not UTF-8 text",
    "record_not_an_object": "a match record is an object (a table in TOML)",
    "unknown_field": "{path}: unknown field",
    "field_required": "{path}: is required",
    "field_type": "{path}: must be {expected}",
    "field_range": "{path}: must be from {min} to {max}",
    "field_enum": "{path}: unknown value {value} (one of {allowed})",
    "field_too_long": "{path}: at most {max} characters",
    "too_many_items": "{path}: at most {max} items",
    "too_few_items": "{path}: at least {min} items",
    "bad_unicode": "{path}: not valid Unicode text (a lone surrogate)",
    "too_deep": "{path}: nested too deeply",
    "at_before_start": "{event} ({type} at {at}): before the start of the record "
    "(times count from 0 s)",
}


#: input over a cap (``chukker.limits``), a heavy-work pool full (``chukker.web.heavy``),
#: a request's line and headers over the server's cap (``chukker.web.limits``)
LIMITS: dict[str, str] = {
    "too_deep": "{where}: nested deeper than {limit} levels",
    "too_many_rows": "{where}: more than {limit} rows",
    "too_big": "{where}: larger than {limit} bytes",
    "compressed": "{where}: a {kind}-compressed file; send it uncompressed",
    "not_in_upload": "{where}: names a file that is not part of this upload; "
                     "send the file in the same request",
    # the heavy-work pools of the web app (chukker.web.heavy)
    "heavy_busy": "the server is busy with other {kind} requests; try again in {retry_after} s",
    "heavy_limit": "this {kind} request needs more than the server gives one request "
                   "({limit}); send a smaller file",
    # a request's line and headers over the server's cap (chukker.web.limits, issue 41)
    "headers_too_large": "the request line and headers are limited to {limit} bytes",
}  # fmt: skip


#: the match API's own refusals (the live service's and the web's); the API also says
#: every code of :data:`LIMITS`
API: dict[str, str] = {
    "bad_request": "the request is not valid: {problems}",
    "bad_setup": "the match set-up is not valid: {path}: {reason}",
    "bad_token": "that token does not belong to this match",
    "busy": "the server is busy; try again in {retry_after} s with the same command_id",
    "storage_full": "not stored: the server's disk is full (the operator must free space); "
                    "try again in {retry_after} s with the same command_id",
    "store_unavailable": "not stored: the server cannot reach its database now; "
                         "try again in {retry_after} s with the same command_id",
    "command_reused": "command_id {command_id} was already used for event {seq} "
                      "with a different content",
    "committee_only": "the match is final: only the committee may undo (Rule 18)",
    "at_not_allowed": "leave 'at' out of the event: send it beside 'event' "
                      "(or not at all: the server stamps each event's time)",
    "has_events": "create the match without events, then post them one by one",
    "invalid_event": "the event is not valid: {field}: {reason}",
    "invalid_header": "the match set-up is not valid: {field}: {reason}",
    "invalid_id": "that is not a match id",
    "no_token": "send the timekeeper's or the committee's token as "
                "'Authorization: Bearer <token>'",
    "not_found": "nothing here",
    "metrics_token_required": "the metrics need the metrics token (setting metrics_token), "
                              "sent as 'Authorization: Bearer <token>'",
    "organiser_required": "creating matches needs the organiser's token, sent as "
                          "'Authorization: Bearer <token>'",
    "quarantined": "match {match_id} cannot be replayed ({reason}); it is kept aside and "
                   "the committee can export its stored events",
    "rate_limited": "too many requests from this address; try again in {retry_after} s",
    "refused": "refused: {reason}",
    "too_large": "request bodies are limited to {limit} bytes",
    "too_many_bad_tokens": "too many bad tokens from this address for this match; "
                           "wait and try again",
    "too_many_streams": "too many live streams are open; try again in {retry_after} s",
    "unknown_event_type": "unknown event type {type}; one of {types}",
    "unknown_match": "no match with id {match_id}",
    "server_error": "the server could not answer this request",
    "bad_body": "the request body cannot be read (send JSON)",
    "method_not_allowed": "this address does not take that method",
    "http_error": "the request was refused (HTTP {status})",
    "edge_read_only": "this server is a public edge and takes no writes; send them to "
                      "the officials' server: {officials}",
}


#: the tournament API's refusals (``chukker.tournament.refusals``)
TOURNAMENT: dict[str, str] = {
    "bad_tournament": "send the tournament's file as text (the field 'text', TOML or JSON) "
                      "or as an object (the field 'tournament')",
    "unreadable_tournament": "the tournament file cannot be read: {cause}",
    # the causes of an unreadable file, beside the record's (chukker.record.errors)
    "at_line": "line {line}, column {column}: {cause}",
    "tournament_not_a_table": "a tournament file is a table (an object in JSON)",
    "tournament_problems": "the tournament file has problems: {problems}",
    "tournament_exists": "this tournament exists ({url}): {cause}",
    "tournament_needs_token": "to update it, send the organiser's token or the "
                              "tournament's committee token (Authorization: Bearer)",
    "tournament_played": "matches already played would change: {problems}",
    "unknown_tournament": "no tournament with id {tournament_id}",
    "bad_start": "the start must be a local date and time such as 2026-12-05T15:00, "
                 "not {start}",
    "bad_arena": "an arena's name has 1 to 60 characters",
    "match_started": "match {match_id} has started: it cannot change arena",
    "unknown_arena": "this tournament has no arena named {arena}",
}


#: every section by name, in the order :func:`chukker.errors.template` reads them
SECTIONS: dict[str, dict[str, str]] = {
    "ENGINE": ENGINE, "CLUB": CLUB, "NOTICES": NOTICES, "RECORD": RECORD, "API": API,
    "LIMITS": LIMITS, "TOURNAMENT": TOURNAMENT,
}

#: the codes two sections say in their own words: ``too_deep`` (a record's field, or a
#: parser's cap: :data:`LIMITS`, which the API says) and ``unknown_event_type`` (the
#: engine's, or the API's with the list of types)
SHARED: frozenset[str] = frozenset({"too_deep", "unknown_event_type"})
