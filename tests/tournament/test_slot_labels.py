"""A slot whose team is not known yet is said in words, in the page's language."""

from __future__ import annotations

import pytest

from chukker.tournament.model import TeamRef
from chukker.web.shared.tournament_view import ref_label


@pytest.mark.parametrize(
    ("lang", "place", "winner", "loser"),
    [
        ("en", "Pool A, place 1", "Winner of s1", "Loser of s2"),
        ("es", "Grupo A, puesto 1", "Ganador de s1", "Perdedor de s2"),
        ("it", "Girone A, posto 1", "Vincitore di s1", "Perdente di s2"),
    ],
)
def test_slots_from_a_place_or_a_match_are_said_in_the_pages_language(
    lang: str, place: str, winner: str, loser: str
) -> None:
    assert ref_label(TeamRef(stage="pool-a", place=1), lang) == place
    assert ref_label(TeamRef(winner_of="s1"), lang) == winner
    assert ref_label(TeamRef(loser_of="s2"), lang) == loser
    assert ref_label(TeamRef(team="potros"), lang) == "potros"
