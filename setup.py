"""Build hook: the engine's fold compiled with mypyc where this machine can, and the
public fan-out's one C module (``chukker.live._sendeach``) where a C compiler is found.

Everything else is declared in pyproject.toml. The fold's modules
(``chukker.engine.native.MODULES``) are compiled when mypy (with mypyc) is importable
and a C compiler is found; otherwise, or with ``CHUKKER_PURE_PYTHON=1``, the package
installs as pure Python. ``chukker.live._sendeach`` needs no mypyc, only a C compiler
(without it, or with ``CHUKKER_PURE_PYTHON=1``, the fan-out sends from Python: the same
bytes, slower). A failed compilation never fails the install: each extension
is optional, and ``native.json`` (the sources each was built from) is written only when
all of them were built, so the package uses them all or none (``chukker.engine.native``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE = Path("src", "chukker")
#: as chukker.engine.native.MODULES (setup.py cannot import the package it builds)
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


def _source(m: str) -> Path:
    return PACKAGE.joinpath(*m.split(".")).with_suffix(".py")
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


_SAID: list[str] = []


def _say(msg: str) -> None:
    """Tell the builder, once per build, why the engine stays pure Python (the first
    reason found is the one that matters; later ones follow from it)."""
    if _SAID:
        return
    _SAID.append(msg)
    print(f"chukker build: {msg}", file=sys.stderr)


def _opt_level() -> str:
    """The C compiler's level: ``-O3`` unless ``CHUKKER_MYPYC_OPT`` says 0-3 (the wheel's
    test builds at 0: what it checks is that a plain build compiles and packs the engine,
    not its speed, and -O0 halves the build's time)."""
    level = os.environ.get("CHUKKER_MYPYC_OPT", "3")
    return level if level in ("0", "1", "2", "3") else "3"


#: the fan-out's sends (issue 43): plain C, built whether or not mypyc is here
SENDEACH = Extension("chukker.live._sendeach", [str(PACKAGE / "live" / "_sendeach.c")],
                     optional=True)


def _extensions() -> list[Any]:
    if os.environ.get("CHUKKER_PURE_PYTHON", "") not in ("", "0"):
        _say("CHUKKER_PURE_PYTHON is set: the engine stays pure Python")
        return []
    if not BUILDS.intersection(sys.argv[1:]):
        return []  # metadata only: no need to compile
    return [*_engine(), SENDEACH]


def _engine() -> list[Any]:
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypyc is not installed: the engine stays pure Python")
        return []
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        # the build's own environment has mypy but not the package's dependencies:
        # modules the fold does not compile are read for their types only, quietly
        exts = mypycify(
            ["--follow-imports=silent", "--ignore-missing-imports",
             *[str(_source(m)) for m in MODULES]],
            opt_level=_opt_level(),
            target_dir=str(Path("build", "mypyc")),
        )
    except BaseException as e:  # any failure leaves the pure engine
        _say(f"mypyc could not compile the engine ({type(e).__name__}: {e}); pure Python")
        return []
    finally:
        os.chdir(cwd)
    for ext in exts:
        ext.optional = True
    return exts


class BuildExt(build_ext):
    """Builds the optional extensions, then stamps them with the sources they came from."""

    def run(self) -> None:
        super().run()
        engine = [e for e in self.extensions if e is not SENDEACH]
        if not engine:
            return
        built = all(Path(self.get_ext_fullpath(e.name)).is_file() for e in engine)
        stamp = Path(self.get_ext_fullpath("chukker.engine.state")).parent / "native.json"
        if not built:
            _say("some engine extensions did not build: the engine runs as pure Python")
            stamp.unlink(missing_ok=True)
            return
        sources = {m: hashlib.sha256((ROOT / _source(m)).read_bytes()).hexdigest() for m in MODULES}
        stamp.write_text(json.dumps({"sources": sources}, indent=1) + "\n", encoding="utf-8")

    def get_outputs(self) -> list[str]:
        outs = list(super().get_outputs())
        if any(e is not SENDEACH for e in self.extensions):
            out = Path(self.get_ext_fullpath("chukker.engine.state")).parent
            outs.append(str(out / "native.json"))
        return outs


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildExt})
