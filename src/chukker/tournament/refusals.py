"""The tournament API's refusal codes and their English templates.

The same mechanism as the match API's (:mod:`chukker.web.errors`): each answer
carries a stable ``code`` and JSON ``params``; the English sentence is the template
(:data:`MESSAGES`, the registry's section :data:`chukker.errors.words.TOURNAMENT`) filled
from the params; Spanish and Italian are in
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

from chukker.errors import words

#: in the one registry of words (:data:`chukker.errors.words.TOURNAMENT`)
MESSAGES: dict[str, str] = words.TOURNAMENT
