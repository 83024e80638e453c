"""The record's quick yes (``chukker.record.quick``) is generated from the field tables."""

from __future__ import annotations

from pathlib import Path

import chukker.record.definitions as definitions


def test_record_quick_module_is_what_the_tables_generate_today() -> None:
    path = Path(definitions.__file__).with_name("quick.py")
    assert path.read_text(encoding="utf-8") == definitions.quick_source(), (
        "src/chukker/record/quick.py is out of date: regenerate it (see its docstring)"
    )


def test_record_quick_yes_has_every_event_type() -> None:
    assert set(definitions.CLEAN) == {str(t) for t in definitions.EVENTS}
