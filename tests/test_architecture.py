"""The package's shape, read from its source with ``ast``: imports point one way.

* no import cycle between modules (function-level imports count too: a lazy import
  hides a circle, it does not remove it);
* nothing outside ``chukker/web`` imports a web framework or ``chukker.web``;
* the engine imports only the rules, the errors' base and the standard library (and
  msgspec where the events are defined and typed: issue 46);
* the errors' base and registry (``chukker.errors``) import only the standard library;
* the live service imports no web framework;
* every part's page router is mounted in the app.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "chukker"
WEB_FRAMEWORKS = ("fastapi", "starlette", "uvicorn")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _imports(name: str, path: Path) -> Iterator[str]:
    """Every module ``name`` imports, anywhere in its body, as absolute names."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if node.module == "__future__":
                continue
            yield mod
            for a in node.names:  # ``from chukker.web import api``: the module api
                if f"{mod}.{a.name}" in MODULES:
                    yield f"{mod}.{a.name}"


def _internal(target: str) -> str | None:
    """The project's module ``target`` names (a name inside a module: that module)."""
    while target:
        if target in MODULES:
            return target
        target = target.rpartition(".")[0]
    return None


@functools.cache
def graph() -> dict[str, set[str]]:
    """Each module's imports of the project's own modules, read once, when a test first
    asks (not at collection, where every worker of the run would read the whole package)."""
    out: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        deps = {m for t in _imports(name, path) if (m := _internal(t)) is not None and m != name}
        # a package's ``__init__`` re-exporting its own modules is not an arrow back up
        # (importing ``chukker.x.y`` runs ``chukker.x``'s __init__, which the graph need
        # not say)
        if path.name == "__init__.py":
            deps -= {d for d in deps if d.startswith(name + ".")}
        out[name] = deps
    return out


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    g = graph()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in g:
        if v not in index:
            visit(v)
    return out


def test_architecture_no_import_cycle_between_modules() -> None:
    assert _cycles() == []


def test_architecture_cycle_finder_finds_a_circle() -> None:
    g = graph()
    saved = {k: set(v) for k, v in g.items()}
    try:
        g["chukker.engine.core"].add("chukker.record")
        g["chukker.record"].add("chukker.engine.core")
        assert any({"chukker.engine.core", "chukker.record"} <= set(c) for c in _cycles())
    finally:
        g.clear()
        g.update(saved)


def _outside(prefix: str) -> Iterator[tuple[str, str]]:
    for name, path in MODULES.items():
        if name == prefix or name.startswith(prefix + "."):
            continue
        for t in _imports(name, path):
            yield name, t


def test_architecture_only_web_imports_a_web_framework_or_chukker_web() -> None:
    bad = [(n, t) for n, t in _outside("chukker.web")
           if t.split(".")[0] in WEB_FRAMEWORKS or t == "chukker.web"
           or t.startswith("chukker.web.")]
    assert bad == []


def test_architecture_engine_imports_only_rules_and_the_stdlib() -> None:
    bad = []
    for name, path in MODULES.items():
        if not name.startswith("chukker.engine"):
            continue
        for t in _imports(name, path):
            top = t.split(".")[0]
            if t.startswith("chukker."):
                if not (t.startswith("chukker.engine") or t.startswith("chukker.rules")
                        or t.startswith("chukker.errors")):  # the one base (stdlib only)
                    bad.append((name, t))
            elif top and top != "chukker" and top not in sys.stdlib_module_names:
                if top == "msgspec" and name in MSGSPEC_IN_THE_ENGINE:
                    continue
                bad.append((name, t))
    assert bad == []


#: the engine's one library (issue 46): the events' definitions are msgspec Structs, and
#: the fold types a record's dicts with msgspec where they enter
MSGSPEC_IN_THE_ENGINE = {"chukker.engine.events", "chukker.engine.fold"}


def test_architecture_the_errors_base_and_registry_import_only_the_stdlib() -> None:
    """``chukker.errors`` (:class:`ChukkerError` and the registry of words, issue 45) sits
    below every floor, the engine included: it imports nothing of the project but itself,
    and nothing outside the standard library."""
    assert "chukker.errors.words" in MODULES
    bad = [(name, t) for name, path in MODULES.items()
           if name == "chukker.errors" or name.startswith("chukker.errors.")
           for t in _imports(name, path)
           if not (t == "chukker" or t.startswith("chukker.errors")
                   or t.split(".")[0] in sys.stdlib_module_names)]
    assert bad == []


def test_architecture_whistle_imports_only_itself_numpy_scipy_and_typer() -> None:
    """The detector (issue 31) knows nothing of the web, the engine or the record: the
    console reaches it through its parameters (``params.json``), never the other way."""
    assert "chukker.whistle.detector" in MODULES
    bad = []
    for name, path in MODULES.items():
        if not name.startswith("chukker.whistle"):
            continue
        for t in _imports(name, path):
            top = t.split(".")[0]
            outside = t.startswith("chukker.") and not t.startswith("chukker.whistle")
            foreign = top not in ("chukker", "numpy", "scipy", "typer") and (
                top not in sys.stdlib_module_names)
            if outside or foreign:
                bad.append((name, t))
    assert bad == []


def test_architecture_live_service_imports_no_web_framework() -> None:
    assert "chukker.live.service" in MODULES
    bad = [(name, t) for name, path in MODULES.items() if name.startswith("chukker.live")
           for t in _imports(name, path)
           if t.split(".")[0] in WEB_FRAMEWORKS or t.startswith("chukker.web")]
    assert bad == []


def _paths(routes: list[object], prefix: str = "") -> Iterator[str]:
    """Every path the app answers (through mounts and included routers)."""
    for r in routes:
        ctx = getattr(r, "include_context", None)
        if ctx is not None:  # FastAPI >= 0.16x keeps included routers as such
            yield from _paths(list(r.original_router.routes), prefix + ctx.prefix)  # type: ignore[attr-defined]
            continue
        path = getattr(r, "path", "")
        sub = getattr(r, "routes", None)
        if sub is not None and not hasattr(r, "endpoint"):  # a Mount
            yield prefix + path
            yield from _paths(list(sub), prefix + path)
        else:
            yield prefix + path


@pytest.mark.parametrize("where", [
    "/rules", "/plays/", "/tournaments/", "/learn/", "/m/{match_id}/display",
    "/api/matches/{match_id}/events", "/api/matches/{match_id}/stream", "/healthz",
])
def test_architecture_every_part_is_mounted_in_the_app(tmp_path: Path, where: str) -> None:
    from chukker.web import create_app

    app = create_app(tmp_path / "arch.sqlite3")
    paths = set(_paths(list(app.routes)))
    assert where in paths or any(p.startswith(where) for p in paths), sorted(paths)


# --------------------------------------------------------------------------- no hedges
def _trees() -> Iterator[tuple[str, ast.AST]]:
    for name, path in MODULES.items():
        yield name, ast.parse(path.read_text(encoding="utf-8"), str(path))


#: the only guarded imports, each saying so where it is used (not a default in disguise)
IMPORT_FALLBACKS = {
    "chukker.engine.native",  # a broken compiled build runs the source (docs/engine.md)
    "chukker.web.shared.sheet",  # WeasyPrint without the system's Pango: 503, "use Print"
}


def test_architecture_no_import_of_the_project_or_its_dependencies_is_guarded() -> None:
    """``try: import x / except ImportError`` hides a broken module or install behind a
    default (a page without its plays, refusals in English only): every part is imported
    unconditionally, and a missing one fails at once."""
    bad = []
    for name, tree in _trees():
        if name in IMPORT_FALLBACKS:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Try):
                continue
            for h in node.handlers:
                caught = [h.type] if not isinstance(h.type, ast.Tuple) else h.type.elts
                if any(isinstance(c, ast.Name) and c.id in ("ImportError", "ModuleNotFoundError")
                       for c in caught):
                    bad.append(f"{name}:{node.lineno}")
    assert bad == []


def _module_aliases(name: str, tree: ast.AST) -> set[str]:
    """The local names bound to one of the project's modules in ``tree``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.asname for a in node.names if a.asname and a.name in MODULES}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out |= {a.asname or a.name for a in node.names if f"{node.module}.{a.name}" in MODULES}
    return out


def test_architecture_no_getattr_probing_of_the_projects_own_modules() -> None:
    """``getattr(module, "X", default)`` / ``hasattr(module, "X")`` on one of the project's
    modules answers a default for a name that was renamed or removed: use the name."""
    bad = []
    for name, tree in _trees():
        aliases = _module_aliases(name, tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and node.args):
                target = node.args[0]
                if isinstance(target, ast.Name) and target.id in aliases:
                    bad.append(f"{name}:{node.lineno}")
                if (isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute)
                        and target.func.attr == "import_module"):
                    bad.append(f"{name}:{node.lineno}")
    assert bad == []


def _service_private_names() -> set[str]:
    tree = ast.parse(MODULES["chukker.live.service"].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "LiveService":
            return {n.attr for n in ast.walk(node)
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                    and n.value.id == "self" and n.attr.startswith("_")
                    and not n.attr.startswith("__")}
    raise AssertionError("chukker.live.service has no LiveService")


def test_architecture_nothing_outside_live_reaches_into_the_live_services_private_members(
) -> None:
    """The web, feeds and ops read the service through its public surface
    (``loaded_match``, ``loaded_matches``, ``listening``): ``svc._matches`` would break
    silently when the service keeps its matches elsewhere (e.g. in worker processes)."""
    private = _service_private_names()
    assert "_matches" in private
    bad = []
    for name, tree in _trees():
        if name.startswith("chukker.live"):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in private
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                bad.append(f"{name}:{node.lineno}: .{node.attr}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value in private):
                bad.append(f"{name}:{node.lineno}: {node.func.id} {node.args[1].value}")
    assert bad == []


def test_architecture_every_route_belongs_to_a_plane(tmp_path: Path) -> None:
    """Issue 35: each part is declared for its plane(s) (``web.planes.PARTS``), every route
    of the whole app has a plane, and each plane's app mounts exactly the routes whose
    plane includes it (the rest it sends to the other plane)."""
    from chukker.web import create_app
    from chukker.web.guard import routes_of
    from chukker.web.planes import PARTS, Plane, plane_of

    assert set(PARTS.values()) <= {Plane.OFFICIALS, Plane.PUBLIC, Plane.BOTH}
    both = set(routes_of(create_app(tmp_path / "both.sqlite3").routes))
    for plane in (Plane.OFFICIALS, Plane.PUBLIC):
        mine = set(routes_of(create_app(tmp_path / f"{plane.label}.sqlite3",
                                        plane=plane).routes))
        assert mine <= both
        assert not [r for r in both - mine if plane_of(*r) & plane], plane
    assert all(plane_of(m, p) in (Plane.OFFICIALS, Plane.PUBLIC, Plane.BOTH) for m, p in both)


# ------------------------------------------------------------------ private stays private
def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_reaches() -> list[str]:
    """Every place a module reaches another module's private name (``from m import _x``,
    ``m._x`` on an imported module) or imports a private module (``chukker.store._engine``)
    from outside its package."""
    bad = []
    for name, tree in _trees():
        modules: dict[str, str] = {}  # local name -> one of the project's modules
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                parts = node.module.split(".")
                hidden = next((i for i, p in enumerate(parts) if _private(p)), None)
                if (hidden is not None and node.module in MODULES
                        and not name.startswith(".".join(parts[:hidden]) + ".")):
                    bad.append(f"{name}:{node.lineno}: from {node.module}")
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in MODULES:
                        modules[a.asname or a.name] = full
                    elif _private(a.name) and node.module in MODULES and node.module != name:
                        bad.append(f"{name}:{node.lineno}: {node.module}.{a.name}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in MODULES:
                        modules[a.asname or a.name] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and _private(node.attr)
                    and isinstance(node.value, ast.Name) and node.value.id in modules
                    and modules[node.value.id] != name):
                bad.append(f"{name}:{node.lineno}: {modules[node.value.id]}.{node.attr}")
    return bad


def test_architecture_no_module_imports_another_modules_private_name() -> None:
    """Issue 45: a name with a leading underscore is its module's own (``guard._answer``,
    ``routes._Stream``, ``pages.tournaments._dir``, ``store._engine``): a module that needs
    it uses a public name of the module's surface, or the code moves."""
    assert _private_reaches() == []


def test_architecture_private_name_finder_finds_a_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    reach = ast.parse("from chukker.web.guard import _TooLarge\nfrom chukker.web import guard\n"
                      "guard._compiled\n")
    monkeypatch.setattr(sys.modules[__name__], "_trees", lambda: iter([("chukker.x", reach)]))
    assert _private_reaches() == ["chukker.x:1: chukker.web.guard._TooLarge",
                                  "chukker.x:3: chukker.web.guard._compiled"]


def test_architecture_the_pages_folders_are_the_planes() -> None:
    """Issue 45: ``web/officials`` (the officials' pages) and ``web/public`` (the
    public's) never import each other, and ``web/shared`` (what both render) imports
    neither: a file's folder says whom it serves."""
    folders = ("chukker.web.officials", "chukker.web.public", "chukker.web.shared")
    assert all(any(m.startswith(f + ".") for m in MODULES) for f in folders)

    def folder(m: str) -> str | None:
        return next((f for f in folders if m == f or m.startswith(f + ".")), None)

    bad = []
    for name, deps in graph().items():
        mine = folder(name)
        if mine is None:
            continue
        for d in deps:
            theirs = folder(d)
            if theirs is not None and theirs != mine and theirs != "chukker.web.shared":
                bad.append((name, d))
    assert bad == []
