"""Issue 45, settings injected once: the app's state is typed (``web/state.py``), the
process's settings reach the objects that use them at start, and nothing writes a
module global or ``os.environ`` after start."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from chukker.config import load
from chukker.web.app import create_app
from chukker.web.limits import served
from chukker.web.ops.observe import process_settings
from chukker.web.state import AppState, Configured, found_state, state_of

WEB = Path(__file__).resolve().parents[2] / "src" / "chukker" / "web"

#: the modules whose globals ``chukker serve`` used to overwrite
WATCHED = ("chukker.i18n", "chukker.live.fanout", "chukker.web.limits",
           "chukker.web.shared.render", "chukker.web.ops.observe", "chukker.web.lang",
           "chukker.web.public.rules", "chukker.rulebook.corpus")


def _globals() -> dict[str, dict[str, Any]]:
    return {m: dict(vars(sys.modules[m])) for m in WATCHED if m in sys.modules}


def _serve_settings(tmp_path: Path) -> Any:
    return load(file=None, env={
        "CHUKKER_DATA_DIR": str(tmp_path), "CHUKKER_LANGUAGES": "en,it",
        "CHUKKER_RULES_DB": str(tmp_path / "rules.sqlite3"),
        "CHUKKER_TOURNAMENTS_DIR": str(tmp_path / "tours"),
        "CHUKKER_HEADER_TIMEOUT_S": "3.5", "CHUKKER_BODY_TIMEOUT_S": "4.5",
        "CHUKKER_WRITE_STALL_S": "5.5",
        "CHUKKER_SERVER_STREAM_KEEPALIVE_S": "7", "CHUKKER_LIMITS_STREAM_QUEUE": "64"})


def test_serve_setup_writes_no_module_global_and_no_environment(tmp_path: Path) -> None:
    import chukker.web.lang
    import chukker.web.public.rules  # noqa: F401 - watched

    env, before = dict(os.environ), _globals()
    s = _serve_settings(tmp_path)
    configured = process_settings(s)
    app = create_app(tmp_path / "t.sqlite3", settings=s, configured=configured)
    assert dict(os.environ) == env
    after = _globals()
    for module, names in before.items():
        changed = {k for k, v in names.items() if after[module].get(k) is not v}
        assert changed == set(), (module, changed)
    # ...and the settings reach what uses them, through the app's typed state
    state = state_of(app)
    assert state.configured is configured
    assert configured.languages == ("en", "it")
    assert configured.rules_db == str(tmp_path / "rules.sqlite3")
    assert configured.tournaments_dir == tmp_path / "tours"
    assert state.service.keepalive_every() == 7.0 and state.service.queue_limit == 64
    protocol_view = served(app)
    assert protocol_view is state
    t = protocol_view.timeouts
    assert (t.header(), t.body(), t.write_stall()) == (3.5, 4.5, 5.5)


def test_the_pages_offer_the_languages_of_the_setting(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    s = _serve_settings(tmp_path)
    app = create_app(tmp_path / "t.sqlite3", settings=s, configured=process_settings(s))
    with TestClient(app) as c:
        page = c.get("/", headers={"accept-language": "es,it;q=0.8"})
    assert page.status_code == 200
    assert '<html lang="it"' in page.text  # es is not offered: the next the visitor reads
    assert 'href="?lang=it"' in page.text and 'href="?lang=es"' not in page.text


def test_an_app_without_settings_keeps_the_module_defaults_as_the_tests_set_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chukker.live import fanout
    from chukker.web import limits

    app = create_app(tmp_path / "t.sqlite3")
    state = state_of(app)
    assert state.configured == Configured()
    monkeypatch.setattr(fanout, "KEEPALIVE_S", 0.25)
    monkeypatch.setattr(limits, "HEADER_TIMEOUT_S", 0.5)
    assert state.service.keepalive_every() == 0.25
    assert state.timeouts.header() == 0.5


def test_the_state_of_an_app_not_made_by_create_app_is_none_or_a_type_error() -> None:
    from starlette.applications import Starlette

    bare = Starlette()
    assert found_state(bare) is None and found_state(object()) is None
    with pytest.raises(TypeError, match="create_app"):
        state_of(bare)


def test_the_app_state_is_the_typed_state_and_a_test_gives_its_parts_at_start(
        tmp_path: Path) -> None:
    from chukker.web.heavy import Pools
    from chukker.web.limits import StreamCaps
    from chukker.web.planes import Addresses
    from chukker.web.security import StreamTickets, Throttle
    from chukker.web.state import pools

    given = {"heavy": Pools(), "throttle": Throttle(free=1, block=4, max_delay=0.0),
             "streams": StreamCaps(total=3, per_address=1, reserved=1),
             "stream_tickets": StreamTickets(ttl=5.0),
             "addresses": Addresses(public_url="https://arena.example")}
    app = create_app(tmp_path / "t.sqlite3", **given)
    assert isinstance(app.state, AppState)
    state = state_of(app)
    for name, part in given.items():
        assert getattr(state, name) is part and getattr(state.fixed, name) is part, name
    assert pools(app) is given["heavy"]


def test_nothing_assigns_to_the_app_state_after_start(tmp_path: Path) -> None:
    """Every part, the five a test once swapped on a running app among them, is fixed at
    start: an assignment, a deletion or an item is refused."""
    import dataclasses

    from chukker.web.heavy import Pools
    from chukker.web.state import Fixed

    app = create_app(tmp_path / "t.sqlite3")
    state = state_of(app)
    assert isinstance(state.fixed, Fixed) and state.service is state.fixed.service
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.fixed.service = None  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.fixed.heavy = Pools()  # type: ignore[misc]
    for name in ("service", "settings", "configured", "organiser", "plane", "edge",
                 "feed_cache", "caches", "start_up", "fixed", "anything_new",
                 "addresses", "heavy", "throttle", "streams", "stream_tickets"):
        with pytest.raises(AttributeError, match="fixed at start"):
            setattr(app.state, name, None)
    with pytest.raises(AttributeError, match="fixed at start"):
        app.state.heavy = Pools()
    with pytest.raises(AttributeError, match="fixed at start"):
        del app.state.heavy
    with pytest.raises(TypeError, match="fixed at start"):
        app.state["heavy"] = Pools()  # type: ignore[index]


def test_what_changes_as_the_app_serves_lives_in_holders_made_at_start(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from chukker.web.ops.observe import install

    app = create_app(tmp_path / "t.sqlite3", warm=True)
    state = state_of(app)
    caches, start_up = state.caches, state.start_up
    assert (caches.feeds, caches.season, start_up.warmed) == ({}, None, [])
    assert start_up.observed  # create_app's own install: a second one adds nothing
    routes = len(app.router.routes)
    install(app)
    assert len(app.router.routes) == routes
    with TestClient(app) as c:
        assert c.get("/tournaments/season").status_code == 200
    assert state.caches is caches and state.start_up is start_up
    assert start_up.observed and start_up.warmed and state.warmed is start_up.warmed
    assert caches.season is not None


def _probes(path: Path) -> list[str]:
    """``getattr`` calls in ``path`` that probe an app's state: ``getattr(x.state, ...)``,
    ``getattr(state, ...)``, ``getattr(app_state, ...)`` or ``getattr(x, "state", ...)``."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args):
            continue
        first = node.args[0]
        probes = ((isinstance(first, ast.Attribute) and first.attr == "state")
                  or (isinstance(first, ast.Name) and first.id in ("state", "app_state"))
                  or (len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                      and node.args[1].value == "state"))
        if probes:
            found.append(f"{path.relative_to(WEB)}:{node.lineno}")
    return found


#: what may still probe: nothing (``security.public_base`` takes a typed
#: ``PublicPlane``, the client's address a typed ``TrustedProxies``)
ALLOWED: set[str] = set()


def test_no_getattr_probe_of_the_app_state_is_left_in_web() -> None:
    left = [p for f in sorted(WEB.rglob("*.py")) if f.name not in ALLOWED
            for p in _probes(f)]
    assert left == []


def _untyped_reads(tree: ast.AST) -> list[int]:
    """Lines reading a part of an app's untyped ``state`` (``request.app.state.organiser``,
    ``app.state.heavy``) rather than through ``state_of`` and its kin."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "state"
            and ((isinstance(node.value.value, ast.Name) and node.value.value.id == "app")
                 or (isinstance(node.value.value, ast.Attribute)
                     and node.value.value.attr == "app"))]


def test_no_part_of_the_app_state_is_read_untyped_in_web() -> None:
    """``request.app.state.organiser`` was typed by an annotation only: every part is read
    through ``state_of``, ``found_state``, ``served``, ``proxies_of`` or ``organiser_of``,
    each of which checks the state's type."""
    left = [f"{f.relative_to(WEB)}:{n}" for f in sorted(WEB.rglob("*.py"))
            for n in _untyped_reads(ast.parse(f.read_text(encoding="utf-8")))]
    assert left == []
    assert _untyped_reads(ast.parse("x = request.app.state.organiser\ny = app.state.heavy\n"
                                    "z = state_of(app).heavy\n")) == [1, 2]


#: the getattr/hasattr calls left in web/, each saying why on its line or the line above:
#: the middlewares' ``app`` (a convention of Starlette's, no type), a table's field names,
#: multiprocessing's fork server's private fields (a forked worker lets go of its pipe)
GETATTR_LEFT = {"app.py": 1, "shared/sheet.py": 2, "workers.py": 2}


def test_no_getattr_or_hasattr_is_left_in_web_but_those_that_say_why() -> None:
    """Issue 45: the stores, the limits, the engine's errors, the routes and the worker's
    store are read typed (a Protocol, isinstance, a typed argument)."""
    found: dict[str, int] = {}
    for f in sorted(WEB.rglob("*.py")):
        lines = f.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines), str(f))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr")):
                name = str(f.relative_to(WEB))
                found[name] = found.get(name, 0) + 1
                said = lines[node.lineno - 1] + lines[node.lineno - 2]
                assert "#" in said, f"{name}:{node.lineno} says not why"
    assert found == GETATTR_LEFT


def test_the_probe_finder_finds_a_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    probe = WEB / "__probe_example__.py"
    monkeypatch.setattr(Path, "read_text",
                        lambda self, **_: 'x = getattr(app.state, "service", None)\n'
                        'y = getattr(getattr(app, "state", None), "plane", 1)\n')
    assert _probes(probe) == ["__probe_example__.py:1", "__probe_example__.py:2"]


def test_the_client_address_and_the_public_links_take_typed_arguments(tmp_path: Path
                                                                      ) -> None:
    """``ops/proxy.py`` and ``security.py`` probe nothing (no ``getattr``/``hasattr``):
    the proxies come typed from the app's state, an app not of ``create_app`` trusts
    none, and a public link is read from the state's ``public_url``."""
    from starlette.applications import Starlette

    from chukker.web.planes import Addresses
    from chukker.web.proxied import NO_PROXIES, proxies_of
    from chukker.web.security import public_base

    for path in (WEB.parent / "ops" / "proxy.py", WEB / "security.py", WEB / "proxied.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        assert [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr")
                ] == [], path
    s = load(file=None, env={"CHUKKER_TRUSTED_PROXIES": "10.0.0.0/8",
                             "CHUKKER_DATA_DIR": str(tmp_path)})
    app = create_app(tmp_path / "t.sqlite3", settings=s)
    state = state_of(app)
    assert proxies_of(app) is state.trusted_proxies and proxies_of(Starlette()) is NO_PROXIES
    scope = {"client": ("10.0.0.9", 1), "headers": [(b"x-forwarded-host", b"scores.example"),
                                                    (b"x-forwarded-proto", b"https")]}
    assert public_base(state, scope) == "https://scores.example"
    given = create_app(tmp_path / "t.sqlite3", settings=s,
                       addresses=Addresses(public_url="https://arena.example/"))
    assert public_base(state_of(given), scope) == "https://arena.example"


def test_the_organiser_the_store_and_its_timing_are_read_typed(tmp_path: Path) -> None:
    """``require_organiser`` reads the organiser through ``organiser_of`` (a ``TypeError``
    on an app not of ``create_app``); ``/readyz`` asks the store through Protocols that
    both stores meet; the appends are timed once, by a wrapper known by its type."""
    from starlette.applications import Starlette

    from chukker.web.ops.health import Pinged, Subscribed
    from chukker.web.ops.observe import TimedAppend
    from chukker.web.security import organiser_of

    app = create_app(tmp_path / "t.sqlite3")
    state = state_of(app)
    assert organiser_of(app) is state.organiser
    with pytest.raises(TypeError, match="create_app"):
        organiser_of(Starlette())
    store = state.service.store
    assert isinstance(store, Pinged) and isinstance(store, Subscribed)
    timed = store.append
    assert isinstance(timed, TimedAppend) and timed.backend == "sqlite"
    create_app(store)  # a second app on the same store
    assert store.append is timed  # not wrapped twice
