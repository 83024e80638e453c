"""The tournament API's refusal codes and their English templates.

The same mechanism as the match API's (:mod:`chukker.live.api_errors`): each answer
carries a stable ``code`` and JSON ``params``; the English sentence is the template
here filled from the params; Spanish and Italian are in
``web/locales/{es,it}/LC_MESSAGES/tournament-refusals.po`` (msgid = the template) and
:func:`chukker.web.refusals.refusal_message` puts them together. ``{cause}`` is a nested
refusal (``{"code": ..., "params": ...}``), said in the same language. Codes the match
API already has (``unknown_match``, ``bad_token``, ``too_many_streams``) keep its
templates. The problems found in a tournament file (``{problems}``) have codes of
their own (:mod:`chukker.tournament.problems`, ``tournament-problems.po``): the params
hold their English lines and the answer's ``text`` says them in the caller's language.
An unreadable file's ``{cause}`` is :attr:`chukker.tournament.model.TournamentError.cause`:
``at_line`` (line and column) around the reader's refusal, said in the caller's language
but for the TOML/JSON reader's own English (``not_well_formed``'s ``detail``); the
``detail`` param is the whole English line, as it was before there was a cause.

>>> sorted(MESSAGES)[:3]
['at_line', 'bad_arena', 'bad_start']
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
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
