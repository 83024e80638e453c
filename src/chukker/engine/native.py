"""Which engine runs: the mypyc-compiled one, or the pure-Python source it was built from.

The fold's modules (:data:`MODULES`) are plain, ``mypy --strict`` Python. ``pip install``
compiles them with mypyc where it can (``setup.py``; a build without mypyc or a C
compiler installs the pure modules alone) and writes ``native.json`` beside them: the
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

#: the modules compiled together (the fold and everything it calls per event)
MODULES = ("state", "roster", "clock", "shootout", "penalties", "report", "core", "fold", "allowed")
STAMP = "native.json"
_HERE = Path(__file__).resolve().parent
_PACKAGE = __name__.rpartition(".")[0]


def source_hashes(folder: Path = _HERE) -> dict[str, str]:
    """The SHA-256 of each compiled module's source in ``folder`` (what the stamp holds)."""
    return {m: hashlib.sha256((folder / f"{m}.py").read_bytes()).hexdigest() for m in MODULES}


def _compiled(m: str) -> bool:
    return any((_HERE / f"{m}{s}").is_file() for s in importlib.machinery.EXTENSION_SUFFIXES)


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
        pkg, _, name = fullname.rpartition(".")
        if pkg != _PACKAGE or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _HERE / f"{name}.py")


def _choose() -> bool:
    if os.environ.get("CHUKKER_PURE_PYTHON", "") not in ("", "0") or not _fresh():
        if any(_compiled(m) for m in MODULES):
            sys.meta_path.insert(0, _Source())
        return False
    try:
        for m in MODULES:
            importlib.import_module(f"{_PACKAGE}.{m}")
    except ImportError:  # a broken build (e.g. a missing shared part): run the source
        for m in MODULES:
            sys.modules.pop(f"{_PACKAGE}.{m}", None)
        sys.meta_path.insert(0, _Source())
        return False
    return True


#: ``True`` when the compiled engine runs in this process
NATIVE: bool = _choose()
