"""The habits match the words (issue 45): the pre-commit hooks run what CI runs."""

from __future__ import annotations

from pathlib import Path

from tests.mypy_ahead import STRICT

ROOT = Path(__file__).resolve().parents[1]


def test_precommit_runs_the_same_lint_and_types_as_ci() -> None:
    text = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert "ruff check src tests benchmarks" in text  # test_static.test_ruff_is_clean
    assert f"mypy --strict {' '.join(STRICT)}" in text  # test_static.test_mypy_strict_is_clean
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "`ruff check src tests benchmarks`" in contributing
    assert "`ruff format` is **not** checked" in contributing


def test_blind_except_rule_is_on() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    select = next(line for line in text.splitlines() if line.startswith("select"))
    assert '"BLE"' in select
