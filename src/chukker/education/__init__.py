"""Umpire and player education: a question bank tied to the rules' clauses.

Bank questions are TOML data (``education/data/``); timing questions are made by a
generator and answered by replaying them in the engine; play questions come from
the shipped play scenarios and their verdicts. A test draws questions at random
(by level, edition and language), reproducibly for a seed, and is graded against a
configurable pass mark. Nothing here imports a web framework.
"""

from chukker.education.model import (
    EDITIONS,
    LANGS,
    BankError,
    Kind,
    Level,
    PlayRef,
    Question,
    Source,
    Text,
    check_bank,
    check_question,
    clause_exists,
    clause_ids,
    clause_link,
    load_bank,
    load_files,
    parse_bank,
)

__all__ = [
    "EDITIONS",
    "LANGS",
    "BankError",
    "Kind",
    "Level",
    "PlayRef",
    "Question",
    "Source",
    "Text",
    "check_bank",
    "check_question",
    "clause_exists",
    "clause_ids",
    "clause_link",
    "load_bank",
    "load_files",
    "parse_bank",
]
