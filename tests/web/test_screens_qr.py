"""The QR code of a match's phone page: on the big screen and the score sheet (an
absolute URL from the ``public_url`` setting or a trusted proxy, never from the request's
``Host``: issue 41), never on the streaming overlay."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from chukker.web.planes import Addresses

QR = re.compile(r'<svg[^>]*class="qr-code"[^>]*>.*?<title>([^<]*)</title>', re.S)


def qr_url(page: str) -> str | None:
    m = QR.search(page)
    return html.unescape(m.group(1)) if m else None


@pytest.mark.parametrize("screen", ["/display", "/sheet"])
def test_big_screen_and_sheet_show_the_phone_page_qr(client: Any, make_match: Any,
                                                     screen: str) -> None:
    client.app.state.addresses = Addresses(public_url="https://arena.example")
    m = make_match(client)
    page = client.get(f"/m/{m.id}{screen}?lang=es")
    assert page.status_code == 200
    assert qr_url(page.text) == f"https://arena.example/m/{m.id}"
    assert "Síguelo en el teléfono" in page.text


def test_the_qr_never_follows_the_host_header(client: Any, make_match: Any) -> None:
    m = make_match(client)
    page = client.get(f"/m/{m.id}/display", headers={"host": "evil.example:8443"})
    assert "evil.example" not in page.text and qr_url(page.text) is None
    client.app.state.addresses = Addresses(public_url="https://arena.example/")
    page = client.get(f"/m/{m.id}/sheet", headers={"host": "evil.example"})
    assert qr_url(page.text) == f"https://arena.example/m/{m.id}"
    assert "evil.example" not in page.text


def test_no_qr_on_the_overlay_nor_the_phone_view(client: Any, make_match: Any) -> None:
    client.app.state.addresses = Addresses(public_url="https://arena.example")
    m = make_match(client)
    for screen in ("/overlay", "", "/console"):
        assert qr_url(client.get(f"/m/{m.id}{screen}").text) is None, screen


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
