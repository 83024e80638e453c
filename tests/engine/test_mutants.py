"""The mutation run's list is current, and CI's fixed fast subset is killed (issue 32).

``scripts/mutate.py`` (the full list, about 60 mutants, minutes) is run by hand and its
figure is in docs/engine.md; here a stale mutant fails at once, and ``--fast`` runs the
subset :data:`FAST` names, each mutant against the few test files that hold its clause.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "mutate.py"


def _mutate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("chukker_mutate_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_record_mutation_list_has_no_stale_mutant() -> None:
    m = MUTATE
    engine = ROOT / "src" / "chukker" / "engine"
    stale = [x.name for x in m.MUTANTS if (engine / x.file).read_text().count(x.old) != 1]
    assert stale == [], f"rewrite these mutants for the current code: {stale}"
    names = [x.name for x in m.MUTANTS]
    assert len(set(names)) == len(names)
    assert set(m.FAST) <= set(names)
    assert all((ROOT / f).is_file() for files in m.FAST.values() for f in files)


MUTATE = _mutate()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["none", *MUTATE.FAST])
def test_record_mutation_fast_subset_is_killed(name: str) -> None:
    """Each mutant of the fast subset is killed by its own test files, and those files pass
    without a mutant ("none"); one case per mutant, so the workers share them."""
    pytest.importorskip("pytest_timeout")
    if name == "none":
        mutant = MUTATE.Mutant("none", "__init__.py", "", "")
        tests = sorted({f for files in MUTATE.FAST.values() for f in files})
    else:
        mutant = next(m for m in MUTATE.MUTANTS if m.name == name)
        tests = list(MUTATE.FAST[name])
    fate, _ = MUTATE.run(mutant, [], tests)
    assert fate == ("survived" if name == "none" else "killed"), f"{name}: {fate}"
