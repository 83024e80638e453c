"""The QR code of a match's phone page: on the big screen and the score sheet (an
absolute URL from the ``public_url`` setting or a trusted proxy, never from the request's
``Host``: issue 41), never on the streaming overlay."""

from __future__ import annotations

import html
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.conftest import OPEN

from chukker.web import create_app
from chukker.web.planes import Addresses

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

QR = re.compile(r'<svg[^>]*class="qr-code"[^>]*>.*?<title>([^<]*)</title>', re.S)


def qr_url(page: str) -> str | None:
    m = QR.search(page)
    return html.unescape(m.group(1)) if m else None


def at(db_path: Path, public_url: str) -> TestClient:
    """A client of an app whose public plane is at ``public_url`` (given at start)."""
    return TestClient(create_app(db_path, **OPEN, addresses=Addresses(public_url=public_url)))


@pytest.fixture
def arena(db_path: Path) -> Iterator[TestClient]:
    with at(db_path, "https://arena.example") as c:
        yield c


@pytest.mark.parametrize("screen", ["/display", "/sheet"])
def test_big_screen_and_sheet_show_the_phone_page_qr(arena: Any, make_match: Any,
                                                     screen: str) -> None:
    m = make_match(arena)
    page = arena.get(f"/m/{m.id}{screen}?lang=es")
    assert page.status_code == 200
    assert qr_url(page.text) == f"https://arena.example/m/{m.id}"
    assert "Síguelo en el teléfono" in page.text


def test_the_qr_never_follows_the_host_header(db_path: Path, make_match: Any) -> None:
    with TestClient(create_app(db_path, **OPEN)) as client:
        m = make_match(client)
        page = client.get(f"/m/{m.id}/display", headers={"host": "evil.example:8443"})
    assert "evil.example" not in page.text and qr_url(page.text) is None
    with at(db_path, "https://arena.example/") as client:  # the same match, a set public_url
        page = client.get(f"/m/{m.id}/sheet", headers={"host": "evil.example"})
    assert qr_url(page.text) == f"https://arena.example/m/{m.id}"
    assert "evil.example" not in page.text


def test_no_qr_on_the_overlay_nor_the_phone_view(arena: Any, make_match: Any) -> None:
    m = make_match(arena)
    for screen in ("/overlay", "", "/console"):
        assert qr_url(arena.get(f"/m/{m.id}{screen}").text) is None, screen


def test_the_qr_helper_uses_the_public_url_with_its_path() -> None:
    from types import SimpleNamespace as NS

    from chukker.ops.proxy import TrustedProxies
    from chukker.web.shared.render import phone_qr

    # the app's state as public_link reads it (security.PublicPlane)
    state = NS(public_url="https://scores.example.org/chukker/",
               trusted_proxies=TrustedProxies())
    req = NS(app=NS(state=state), scope={"headers": [(b"host", b"evil.example")]})
    got = phone_qr(req, "2de229a092")  # type: ignore[arg-type]
    assert got["phone_url"] == "https://scores.example.org/chukker/m/2de229a092"
    assert qr_url(str(got["qr_svg"])) == got["phone_url"]
    bare = NS(app=NS(state=NS(public_url="", trusted_proxies=TrustedProxies())),
              scope={"headers": [(b"host", b"evil.example")]})
    assert phone_qr(bare, "2de229a092") == {  # type: ignore[arg-type]
        "phone_url": "/m/2de229a092", "qr_svg": None}
