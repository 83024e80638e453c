"""Typed events, the designs measured (issue 46): msgspec tagged-union Structs against
classes compiled with mypyc, on the decode and on the fold's reads.

Every design is built here from the record's definitions
(``chukker.record.definitions.EVENTS``: one class per event type, the same fields):

* ``Structs``: msgspec Structs (the fields' types of ``benchmarks/replay_msgspec.py``:
  ranges, lengths, ASCII strings, no unknown field; a tagged union on ``type``; frozen,
  outside the collector), decoded from the text (``msgspec.json.Decoder``) or converted
  from parsed dicts (``msgspec.convert``);
* ``frozen dc``: a generated module of ``@final @dataclass(frozen=True)`` classes, one a
  type, ``at`` held as integer milliseconds, built from the parsed dicts after the
  record's check (``record.io.checked_events``: the quick yes, and the full check where
  it says no; the figures of ``docs/engine.md`` were taken with the quick yes generated
  from the tables, ``record/quick.py``, before issue 46 made it the Structs);
* ``native``: the same classes as plain native classes whose fields are ``Final``
  (read-only to mypy, set once by ``__init__``), built the same way, or by ``decode_N``:
  each event's quick yes and its class in one pass, each value read once (``fused``).

The generated module is compiled with mypyc (``-O3``) in a temporary folder, or with
``--pure`` imported as its source. The fold is not rewritten for the measure: a
generated *reader* stands in for it, one for each design, compiled with the classes: for
each event it finds the type (the fold's dispatch: ``CODES`` for dicts, the class for the
others), turns ``at`` into milliseconds where the event holds seconds, and reads every
field of the type (the handlers' ``ev.get(k)``, or ``ev.k``). Today's engine reads its
dicts that way, so

    typed replay ~= engine (from dicts, unchecked) - reader(dicts) + decode + reader(typed)

is the estimate printed, for the records of ``benchmarks/replay.py`` and its short
records of 16 events, beside today's strict replay, all as ratios to ``json.loads`` of
the same texts in the same run (CPU time, best of ``--repeat``). Every design is first
checked to give each event the values of its dict. Needs ``msgspec`` and ``mypy``.

    python benchmarks/typed_events.py [--matches 4000] [--short 10000] [--repeat 5] [--pure]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Union

import msgspec
from msgspec import UNSET, UnsetType

from chukker.engine import NATIVE
from chukker.record import replay
from chukker.record.definitions import AT, EVENTS, HEADER, Field
from chukker.record.io import checked_events

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay import best, build  # benchmarks/replay.py: the same records
from replay_msgspec import _kind

_PY = {"string": "str", "int": "int", "number": "float", "bool": "bool", "enum": "str",
       "penalty": "str", "mount_id": "str", "spot": "list[Any]", "order": "dict[str, Any]",
       "int_or_bool": "object"}


ONE = "            s += 1"


def _cls(typ: str) -> str:
    return "".join(p.capitalize() for p in str(typ).split("_"))


def _attr(k: str) -> str:
    return "in_" if k == "in" else k


def _annot(f: Field) -> str:
    t = _PY[f.kind]
    return t if f.required else f"{t} | None"


def _classes(style: str) -> list[str]:
    """The event classes of one design: ``D``, frozen dataclasses; ``N``, native classes
    whose fields are ``Final`` (read-only to mypy, set once by ``__init__``)."""
    out: list[str] = []
    if style == "D":
        out += ["", "", "@dataclass(frozen=True)", "class DEvent:", "    at_ms: int"]
    else:
        out += ["", "", "class NEvent:", "    at_ms: int"]
    for typ, fields in EVENTS.items():
        name = f"{style}{_cls(typ)}"
        if style == "D":
            out += ["", "", "@final", "@dataclass(frozen=True)", f"class {name}(DEvent):"]
            out += [f"    {_attr(k)}: {_annot(f)}" for k, f in fields.items()] or ["    pass"]
            continue
        args = "".join(f", {_attr(k)}: {_annot(f)}" for k, f in fields.items())
        out += ["", "", "@final", f"class {name}(NEvent):",
                f"    def __init__(self, at_ms: int{args}) -> None:",
                "        self.at_ms = at_ms"]
        out += [f"        self.{_attr(k)}: Final = {_attr(k)}" for k in fields]
    return out


def _typed(style: str) -> list[str]:
    # built after the check: every value already has its type
    out = ["", "", f"def typed_{style}(events: list[dict[str, Any]]) -> list[{style}Event]:",
           f"    out: list[{style}Event] = []",
           "    for d in events:",
           "        typ = d['type']",
           "        t = ms(d['at'])"]
    for n, (typ, fields) in enumerate(EVENTS.items()):
        args = ", ".join(["t"] + [f"d[{k!r}]" if f.required else f"d.get({k!r})"
                                  for k, f in fields.items()])
        out += [f"        {'if' if n == 0 else 'elif'} typ == {str(typ)!r}:",
                f"            out.append({style}{_cls(typ)}({args}))"]
    out += ["        else:", "            raise ValueError(typ)", "    return out"]
    out += ["", "", f"def read_{style}(events: list[{style}Event]) -> int:",
            "    s = 0",
            "    for ev in events:",
            "        s += ev.at_ms & 1"]
    for n, (typ, fields) in enumerate(EVENTS.items()):
        out.append(f"        {'if' if n == 0 else 'elif'} isinstance(ev, {style}{_cls(typ)}):")
        out += [f"            s += ev.{_attr(k)} is not None" for k in fields] or [ONE]
    out += ["    return s"]
    return out


# the generator of the quick yes ``record/quick.py`` was, before issue 46 made msgspec
# the quick yes: the lines of one field's check
def _bounds(x: str, lo: float, hi: float, whole: bool) -> str:
    """``not lo <= x <= hi`` for a float (``whole=False``) or an int ``x``, with each
    infinite bound left out and, for an int, each bound a whole number (exact)."""
    parts = []
    if lo != -math.inf:
        parts.append(repr(math.ceil(lo)) if whole else repr(float(lo)))
    parts.append(x)
    if hi != math.inf:
        parts.append(repr(math.floor(hi)) if whole else repr(float(hi)))
    return "False" if len(parts) == 1 else "not " + " <= ".join(parts)


def _number_test(x: str, src: str, lo: float, hi: float, pad: str) -> list[str]:
    """Lines that return ``False`` unless ``src`` (a name, or an expression first named
    ``x``) is an int or a float in ``[lo, hi]``, each compared as its own type
    (``xf``, ``xi``: compiled, no boxed comparison)."""
    v = src if src.isidentifier() else x
    head = [] if v == src else [f"{pad}{x} = {src}"]
    return [
        *head,
        f"{pad}if type({v}) is float:",
        f"{pad}    {x}f: float = {v}",
        f"{pad}    if {_bounds(f'{x}f', lo, hi, False)}:",
        f"{pad}        return False",
        f"{pad}elif type({v}) is int:",
        f"{pad}    {x}i: int = {v}",
        f"{pad}    if {_bounds(f'{x}i', lo, hi, True)}:",
        f"{pad}        return False",
        f"{pad}else:",
        f"{pad}    return False",
    ]


def _clean_test(i: int, f: Field, required: bool, const: Callable[[frozenset[str]], str]) -> str:
    """The lines that return ``False`` unless ``v`` passes :func:`_fast` for ``f`` (and
    count it in ``n`` when present). Each value is first given its own type, so that
    the compiled module compares numbers and measures strings natively."""
    k = f.kind
    lo = -math.inf if f.min is None else f.min
    hi = math.inf if f.max is None else f.max
    pad = "        "
    lines: list[str]
    if k == "int":
        lines = [f"{pad}if type(v) is not int:", f"{pad}    return False",
                 f"{pad}i{i}: int = v",
                 f"{pad}if {_bounds(f'i{i}', lo, hi, True)}:", f"{pad}    return False"]
    elif k == "number":
        lines = _number_test(f"x{i}", "v", lo, hi, pad)
    elif k == "string":
        lines = [f"{pad}if type(v) is not str:", f"{pad}    return False",
                 f"{pad}s{i}: str = v",
                 f"{pad}if not {int(f.min or 0)} <= len(s{i}) <= {f.max_len or 0}"
                 f" or not s{i}.isascii():", f"{pad}    return False"]
    elif k == "bool":
        lines = [f"{pad}if type(v) is not bool:", f"{pad}    return False"]
    elif k in ("enum", "penalty"):
        lines = [f"{pad}if type(v) is not str:", f"{pad}    return False",
                 f"{pad}s{i}: str = v",
                 f"{pad}if s{i} not in {const(frozenset(f.values))}:", f"{pad}    return False"]
    elif k == "spot":
        lines = [f"{pad}if type(v) is not list:", f"{pad}    return False",
                 f"{pad}l{i}: list[Any] = v",
                 f"{pad}if len(l{i}) != 2:", f"{pad}    return False",
                 *_number_test(f"p{i}", f"l{i}[0]", 0, 100, pad),
                 *_number_test(f"q{i}", f"l{i}[1]", 0, 50, pad)]
    else:  # no quick yes (int_or_bool, order): the full check decides
        lines = [f"{pad}return False"]
    absent = "        return False" if required else "        pass"
    body = "\n".join(lines)
    if lines == [f"{pad}return False"]:
        return f"    if v is None:\n{absent}\n    else:\n{body}"
    return f"    if v is None:\n{absent}\n    else:\n{body}\n        n += 1"


def _fused() -> list[str]:
    """``decode_N``: each event's quick yes (the lines ``record/quick.py`` is generated
    from) and its class built in one pass, each value read once; ``None`` at the first
    event without a quick yes (the full check would then word the refusal)."""
    sets: dict[frozenset[str], str] = {}

    def const(values: frozenset[str]) -> str:
        if values not in sets:
            sets[values] = f"_S{len(sets)}"
        return sets[values]

    funcs: list[str] = []
    for typ, fields in EVENTS.items():
        keys = const(frozenset({"at", "type", *fields}))
        body = [f"def dec_{typ}(ev: dict[str, Any]) -> NEvent | None:", "    n = 1",
                "    v: Any = ev.get('at')", _clean_test(0, AT, True, const), "    t = ms(v)"]
        for i, (k, f) in enumerate(fields.items(), 1):
            body += [f"    v = ev.get({k!r})", _clean_test(i, f, f.required, const),
                     f"    a{i}: Any = v"]
        args = "".join(f", a{i}" for i in range(1, len(fields) + 1))
        body += [f"    if len(ev) != n and not {keys}.issuperset(ev):", "        return None",
                 f"    return N{_cls(typ)}(t{args})"]
        funcs.append("\n".join(body).replace("return False", "return None"))
    out = [f"{name}: Final = frozenset({sorted(v)!r})" for v, name in sets.items()]
    out += ["", "", *"\n\n\n".join(funcs).split("\n")]
    out += ["", "", "def decode_N(events: list[Any]) -> list[NEvent] | None:",
            "    out: list[NEvent] = []",
            "    for ev in events:",
            "        if type(ev) is not dict:",
            "            return None",
            "        typ = ev.get('type')",
            "        if type(typ) is not str:",
            "            return None",
            "        t: str = typ",
            "        e: NEvent | None = None"]
    for n, typ in enumerate(EVENTS):
        out += [f"        {'if' if n == 0 else 'elif'} t == {str(typ)!r}:",
                f"            e = dec_{typ}(ev)"]
    out += ["        if e is None:", "            return None", "        out.append(e)",
            "    return out"]
    return out


def source() -> str:
    """The compiled designs' module: both sets of classes, each with its ``typed_`` and
    ``read_``, and the readers of dicts and of Structs."""
    out = [
        '"""Generated by benchmarks/typed_events.py: do not edit."""',
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass",
        "from typing import Any, Final, final",
        *_classes("D"),
        *_classes("N"),
        "",
        "",
        "def ms(at: Any) -> int:",
        "    if type(at) is float:",
        "        af: float = at",
        "        return int(af * 1000.0 + 0.5)",
        "    ai: int = at",
        "    return ai * 1000",
        *_typed("D"),
        *_typed("N"),
        "",
        "",
        "INF: Final = float('inf')",
        *_fused(),
        "",
    ]
    codes = {str(t): k for k, t in enumerate(EVENTS)}
    out += ["", f"CODES: Final[dict[str, int]] = {codes!r}", ""]
    # the readers: dispatch, time, every field
    out += ["", "def read_dicts(events: list[dict[str, Any]]) -> int:",
            "    s = 0",
            "    codes = CODES",
            "    for ev in events:",
            "        typ = ev.get('type')",
            "        code = codes.get(typ, -1) if type(typ) is str else -1",
            "        s += ms(ev.get('at')) & 1"]
    for n, (_typ, fields) in enumerate(EVENTS.items()):
        out.append(f"        {'if' if n == 0 else 'elif'} code == {n}:")
        out += [f"            s += ev.get({k!r}) is not None" for k in fields] or [ONE]
    out += ["    return s", ""]
    out += ["", "def read_structs(events: list[Any], codes: dict[type, int]) -> int:",
            "    s = 0",
            "    for ev in events:",
            "        code = codes[type(ev)]",
            "        s += ms(ev.at) & 1"]
    for n, (_typ, fields) in enumerate(EVENTS.items()):
        out.append(f"        {'if' if n == 0 else 'elif'} code == {n}:")
        out += [f"            s += getattr(ev, {k!r}) is not None" if k == "in"
                else f"            s += ev.{k} is not None" for k in fields] or [ONE]
    out += ["    return s", ""]
    return "\n".join(out)


def load(compiled: bool) -> ModuleType:
    """The dataclass module, compiled with mypyc (``-O3``) or as its source."""
    tmp = Path(tempfile.mkdtemp(prefix="typed46-"))
    name = "chukker_typed_bench"
    (tmp / f"{name}.py").write_text(source(), encoding="utf-8")
    if compiled:
        env = {**os.environ, "MYPYC_OPT_LEVEL": "3"}
        done = subprocess.run([sys.executable, "-m", "mypyc", f"{name}.py"], cwd=tmp, env=env,
                              capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"mypyc failed:\n{done.stdout}{done.stderr}")
        sys.path.insert(0, str(tmp))
        mod = importlib.import_module(name)
        assert mod.__file__ is not None and not mod.__file__.endswith(".py"), mod.__file__
        return mod
    spec = importlib.util.spec_from_file_location(name, tmp / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _struct(typ: str, fields: dict[str, Field]) -> type[msgspec.Struct]:
    """``benchmarks/replay_msgspec.py``'s Struct of a type, frozen and outside the
    collector (an event holds no cycle: 7 % faster to decode)."""
    spec: list[Any] = [("at", _kind(AT))]
    for name, f in fields.items():
        t = _kind(f)
        spec.append((name, t) if f.required else (name, Union[t, None, UnsetType], UNSET))  # noqa: UP007
    spec.sort(key=lambda s: len(s) == 3)
    return msgspec.defstruct(f"Event_{typ}", spec, tag=typ, tag_field="type",
                             forbid_unknown_fields=True, frozen=True, gc=False)


STRUCTS = [_struct(str(t), f) for t, f in EVENTS.items()]
EVENT = Union[tuple(STRUCTS)]  # type: ignore[valid-type]  # noqa: UP007
STRUCT_CODES = {c: k for k, c in enumerate(STRUCTS)}
#: ``msgspec.convert`` to a Struct: to a ``list[...]`` it would work the type out at every
#: call (a short record's conversion took four times as long)
EVENTS_OF = msgspec.defstruct("Events", [("events", list[EVENT])])  # type: ignore[valid-type]
RECORD = msgspec.json.Decoder(msgspec.defstruct(
    "Record",
    [(k, Any, UNSET) for k in HEADER if k != "events"]
    + [("events", Union[list[EVENT], UnsetType], UNSET)],  # noqa: UP007
    forbid_unknown_fields=True,
))


def figures(texts: list[str], dc: ModuleType, repeat: int) -> dict[str, float]:
    docs = [json.loads(t) for t in texts]
    evs = [d["events"] for d in docs]
    # the same values, or the figures mean nothing
    for d, t in zip(docs, texts, strict=True):
        e = d["events"]
        assert checked_events(e) == (e, None)
        st = msgspec.convert(e, list[EVENT])
        for got in (dc.typed_D(e), dc.typed_N(e), dc.decode_N(e) or dc.typed_N(e)):
            assert [x.at_ms for x in got] == [dc.ms(x["at"]) for x in e]
            for x, y, s in zip(e, got, st, strict=True):
                for k, v in x.items():
                    if k not in ("at", "type"):
                        assert getattr(y, _attr(k)) == v, (k, v)
                        assert getattr(s, k) in (v, tuple(v) if isinstance(v, list) else v)
        assert RECORD.decode(t).events == st
    frozen = [dc.typed_D(e) for e in evs]
    native = [dc.typed_N(e) for e in evs]
    structs = [msgspec.convert(e, list[EVENT]) for e in evs]
    codes = STRUCT_CODES
    conv = msgspec.convert
    rows: dict[str, Any] = {
        "json.loads": lambda: [json.loads(t) for t in texts],
        "strict replay (today)": lambda: [replay(d) for d in docs],
        "engine, unchecked (today)": lambda: [replay(d, strict=False) for d in docs],
        "check (today: quick yes)": lambda: [checked_events(e) for e in evs],
        "reader: dicts": lambda: [dc.read_dicts(e) for e in evs],
        "reader: frozen dataclasses": lambda: [dc.read_D(e) for e in frozen],
        "reader: native Final classes": lambda: [dc.read_N(e) for e in native],
        "reader: Structs": lambda: [dc.read_structs(e, codes) for e in structs],
        "checked dicts -> frozen dc": lambda: [dc.typed_D(e) for e in evs],
        "checked dicts -> native": lambda: [dc.typed_N(e) for e in evs],
        "dicts -> native, fused check": lambda: [dc.decode_N(e) or dc.typed_N(checked_events(e)[0])
                                                 for e in evs],
        "dicts -> Structs (convert)": lambda: [conv({"events": e}, EVENTS_OF).events for e in evs],
        "text -> Structs (msgspec.json)": lambda: [RECORD.decode(t) for t in texts],
    }
    gc.collect()
    gc.freeze()
    out = {k: best(fn, repeat) for k, fn in rows.items()}
    gc.unfreeze()
    return out


def show(title: str, n: int, f: dict[str, float]) -> None:
    base = f["json.loads"]
    print(f"{title}: {n} events")
    for k, t in f.items():
        print(f"  {k:32s} {t:8.3f} s  {n / t:12,.0f} events/s  {t / base:6.2f}x json.loads")
    rest = f["engine, unchecked (today)"] - f["reader: dicts"]
    check = f["check (today: quick yes)"]
    est = {
        "frozen dataclasses": check + f["checked dicts -> frozen dc"]
        + f["reader: frozen dataclasses"],
        "native Final classes": check + f["checked dicts -> native"]
        + f["reader: native Final classes"],
        "native, fused": f["dicts -> native, fused check"] + f["reader: native Final classes"],
        "Structs": f["dicts -> Structs (convert)"] + f["reader: Structs"],
    }
    print(f"  estimate, typed strict replay from dicts (today "
          f"{f['strict replay (today)'] / base:.2f}x): "
          + ", ".join(f"{k} {(rest + v) / base:.2f}x" for k, v in est.items()))
    fused = base + f["dicts -> native, fused check"] + f["reader: native Final classes"]
    structs = f["text -> Structs (msgspec.json)"] + f["reader: Structs"]
    print(f"  estimate, from the text to the report (today json.loads + strict "
          f"{(base + f['strict replay (today)']) / base:.2f}x): json.loads + native, fused "
          f"{(rest + fused) / base:.2f}x, Structs from the text {(rest + structs) / base:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=4000)
    ap.add_argument("--short", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--pure", action="store_true", help="the generated classes as Python source")
    a = ap.parse_args()
    dc = load(compiled=not a.pure)
    print(f"engine: {'compiled (mypyc)' if NATIVE else 'pure Python'}; classes "
          f"{'pure Python' if a.pure else 'compiled (mypyc -O3)'}; msgspec {msgspec.__version__}; "
          f"load {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    texts = build(a.matches, a.seed)
    shorts = build(a.short, a.seed + 1, 16)
    show(f"{a.matches} matches", sum(len(json.loads(t)["events"]) for t in texts),
         figures(texts, dc, a.repeat))
    show(f"{a.short} short records", sum(len(json.loads(t)["events"]) for t in shorts),
         figures(shorts, dc, a.repeat))


if __name__ == "__main__":
    main()
