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
    from chukker.engine.mounts import Mounts
    from chukker.engine.penalties import Penalties
    from chukker.engine.report import Report
    from chukker.engine.roster import Roster
    from chukker.engine.shootout import Shootout
    from chukker.engine.state import State

    assert [c.__name__ for c in Core.__mro__[:-1]] == [
        c.__name__ for c in (Core, Mounts, Report, Penalties, Shootout, Clock, Roster, State)
    ]
    # every handler is a method of the one class the fold runs
    assert all(getattr(Core, h.__name__) is h for h in HANDLERS.values())


def test_engine_copy_copies_every_field_and_shares_no_table() -> None:
    import random

    from chukker.engine.fold import Fold
    from chukker.engine.simulate import default_setup, simulate

    setup = default_setup(tiebreak="shootout", split_periods=True, warning_horn=True)
    fold = Fold(setup)
    fold.feed(simulate(setup, random.Random(4), 250))
    core = fold.core
    c = core.copy()
    if not hasattr(core, "__dict__"):  # the compiled engine: checked by the pure one
        return
    assert vars(c).keys() == vars(core).keys()
    assert vars(c) == vars(core)
    for k, v in vars(core).items():
        shared = ("other", "hcp", "sheet", "pending", "injuries", "so_order", "so_seq",
                  "restart", "last_free_hit", "strings",
                  "plans")  # replaced, never changed in place
        if isinstance(v, list | set | dict) and k not in shared:
            assert vars(c)[k] is not v, k  # every container the fold changes is copied
