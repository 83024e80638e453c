"""What the engine's property tests generate matches from: committee options, and a
set-up with two alternates a team (so that substitutions can be probed)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from chukker.engine import Setup
from chukker.engine.simulate import default_setup

OPTIONS = st.fixed_dictionaries(
    {
        "periods": st.sampled_from(["regulation", "six"]),
        "split_periods": st.booleans(),
        "tiebreak": st.sampled_from(["extra-periods", "shootout"]),
        "warning_horn": st.booleans(),
    }
)


def with_alternates(**options: Any) -> Setup:
    doc = default_setup(**options).to_dict()
    for t in doc["teams"].values():
        t["alternates"] = [{"no": 4, "handicap": 1}, {"no": 5, "handicap": 0}]
    return Setup.from_dict(doc)
