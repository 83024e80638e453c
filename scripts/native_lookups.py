"""Which compiled functions look a name up in their module's dict at each use (issue 46).

In the mypyc build a module-level name that is not ``Final`` (or one imported from a
module that is not compiled) is read with a dict lookup every time; a ``Final`` one is a C
static. This lists, for each compiled function of the fold's modules, the names it reads
that way, from the generated C of the last build (``python setup.py build_ext
--inplace``). Names read only on an error path (``show``, ``message``) cost nothing when
nothing is refused.

    python scripts/native_lookups.py [build/mypyc]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_FUNC = re.compile(r"\n(?=[A-Za-z_][A-Za-z_0-9 *]*CPyDef_[A-Za-z_0-9]+\([^;]*\) \{)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9 *]*(CPyDef_[A-Za-z_0-9]+)\(")
_LOOKUP = re.compile(
    r"CPyStatic_[a-z_]+___globals;\n\s*cpy_r_r\d+ = CPyStatics\[\d+\]; /\* '([^']+)' \*/")


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "build/mypyc")
    built = sorted(root.glob("__native_*.c"), key=lambda p: p.stat().st_mtime)
    for c in built[-1:]:  # the last build's
        for part in _FUNC.split(c.read_text()):
            m = _NAME.match(part)
            if not m or m.group(1).endswith("_____top_level__"):
                continue
            names = sorted(set(_LOOKUP.findall(part)))
            if names:
                print(m.group(1).removeprefix("CPyDef_"), " ".join(names))


if __name__ == "__main__":
    main()
