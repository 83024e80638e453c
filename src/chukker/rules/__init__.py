"""Editions of the rules and their parameters, as data: small and pure.

The rulebook's documents (importers, corpus, search, diffs, pages) live in
:mod:`chukker.rulebook`; everything else reads its parameters from here.
"""

from chukker.rules.editions import (
    EDITIONS,
    FEATURES,
    Edition,
    EditionId,
    Param,
    PeriodPlan,
    edition,
    introduced_in,
)

__all__ = [
    "EDITIONS",
    "FEATURES",
    "Edition",
    "EditionId",
    "Param",
    "PeriodPlan",
    "edition",
    "introduced_in",
]
