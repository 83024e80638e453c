"""Which engine runs: the mypyc-compiled one, or the pure-Python source it was built from.

The fold's modules (:data:`MODULES`) are plain, ``mypy --strict`` Python. ``pip install``
compiles them with mypyc where it can (``setup.py``; a build without mypyc or a C
compiler installs the pure modules alone) and writes ``native.json`` beside this module: the
SHA-256 of each source it compiled. The compiled modules are used only when every one is
present and built from the sources beside it, so an editable install whose ``.py`` files
changed after the build runs the changed source, never a stale extension.
``CHUKKER_PURE_PYTHON=1`` asks for the pure engine. Both give the same answers
(``tests/engine/test_native.py`` replays generated matches through both).

>>> NATIVE in (True, False)
True
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: the modules compiled together (the fold, everything it calls per event, and the
#: record's quick yes), under ``chukker``
MODULES = (
    "engine.options",
    "engine.setup",
    "engine.state",
    "engine.roster",
    "engine.clock",
    "engine.shootout",
    "engine.penalties",
    "engine.report",
    "engine.plan",
    "engine.spots",
    "engine.mounts",
    "engine.core",
    "engine.fold",
    "engine.allowed",
    "record.definitions",
)
STAMP = "native.json"
_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parent  # the chukker package
_TOP = __name__.split(".")[0]


def _path(m: str, suffix: str = ".py") -> Path:
    *folders, name = m.split(".")
    return _ROOT.joinpath(*folders, name + suffix)


def source_hashes() -> dict[str, str]:
    """The SHA-256 of each compiled module's source (what the stamp holds)."""
    return {m: hashlib.sha256(_path(m).read_bytes()).hexdigest() for m in MODULES}


def _compiled(m: str) -> bool:
    return any(_path(m, s).is_file() for s in importlib.machinery.EXTENSION_SUFFIXES)


def _fresh() -> bool:
    """Every module compiled, from the sources beside it."""
    if not all(_compiled(m) for m in MODULES):
        return False
    try:
        built = json.loads((_HERE / STAMP).read_text(encoding="utf-8"))
        return bool(built.get("sources") == source_hashes())
    except (OSError, ValueError, AttributeError):
        return False


class _Source(importlib.abc.MetaPathFinder):
    """Loads the fold's modules from their ``.py`` files, passing over any extension."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        top, _, name = fullname.partition(".")
        if top != _TOP or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _path(name))


def _choose() -> bool:
    if os.environ.get("CHUKKER_PURE_PYTHON", "") not in ("", "0") or not _fresh():
        if any(_compiled(m) for m in MODULES):
            sys.meta_path.insert(0, _Source())
        return False
    try:  # the engine's part now (the record's quick yes loads with the record package)
        for m in MODULES:
            if m.startswith("engine."):
                importlib.import_module(f"{_TOP}.{m}")
    except ImportError:  # a broken build (e.g. a missing shared part): run the source
        for m in MODULES:
            sys.modules.pop(f"{_TOP}.{m}", None)
        sys.meta_path.insert(0, _Source())
        return False
    return True


#: ``True`` when the compiled engine runs in this process
NATIVE: bool = _choose()
