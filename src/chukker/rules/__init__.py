"""Editions, rule parameters and the rulebook corpus."""

from chukker.rules.editions import EDITIONS, Edition, EditionId, Param, PeriodPlan, edition

__all__ = ["EDITIONS", "Edition", "EditionId", "Param", "PeriodPlan", "edition"]
