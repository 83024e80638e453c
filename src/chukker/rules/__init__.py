"""Editions of the rules and their parameters, as data: small and pure.

The rulebook's documents (importers, corpus, search, diffs, pages) live in
:mod:`chukker.rulebook`; everything else reads its parameters from here.
"""

from chukker.rules.editions import EDITIONS, Edition, EditionId, Param, PeriodPlan, edition

__all__ = ["EDITIONS", "Edition", "EditionId", "Param", "PeriodPlan", "edition"]
