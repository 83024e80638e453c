"""The engine's layout (issue 20): one file per concern, each small enough to read."""

from __future__ import annotations

from pathlib import Path

import chukker.engine

ENGINE = Path(chukker.engine.__file__).parent


def test_engine_every_file_under_600_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in ENGINE.glob("*.py")}
    assert sizes
    assert {name: n for name, n in sizes.items() if n >= 600} == {}


def test_engine_core_is_one_class_over_the_concern_layers() -> None:
    from chukker.engine.clock import Clock
    from chukker.engine.core import HANDLERS, Core
    from chukker.engine.penalties import Penalties
    from chukker.engine.report import Report
    from chukker.engine.roster import Roster
    from chukker.engine.shootout import Shootout
    from chukker.engine.state import State

    assert [c.__name__ for c in Core.__mro__[:-1]] == [
        c.__name__ for c in (Core, Report, Penalties, Shootout, Clock, Roster, State)
    ]
    # every handler is a method of the one class the fold runs
    assert all(getattr(Core, h.__name__) is h for h in HANDLERS.values())
