"""The QR code of a match's phone page: on the big screen and the score sheet (an
absolute URL from the request's base URL), never on the streaming overlay."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

QR = re.compile(r'<svg[^>]*class="qr-code"[^>]*>.*?<title>([^<]*)</title>', re.S)


def qr_url(page: str) -> str | None:
    m = QR.search(page)
    return html.unescape(m.group(1)) if m else None


@pytest.mark.parametrize("screen", ["/display", "/sheet"])
def test_big_screen_and_sheet_show_the_phone_page_qr(client: Any, make_match: Any,
                                                     screen: str) -> None:
    m = make_match(client)
    page = client.get(f"/m/{m.id}{screen}?lang=es")
    assert page.status_code == 200
    assert qr_url(page.text) == f"http://testserver/m/{m.id}"
    assert "Síguelo en el teléfono" in page.text


def test_the_qr_follows_the_base_url_behind_a_prefix(client: Any, make_match: Any) -> None:
    m = make_match(client)
    page = client.get(f"/m/{m.id}/display", headers={"host": "arena.example:8443"})
    assert qr_url(page.text) == f"http://arena.example:8443/m/{m.id}"


def test_no_qr_on_the_overlay_nor_the_phone_view(client: Any, make_match: Any) -> None:
    m = make_match(client)
    for screen in ("/overlay", "", "/console"):
        assert qr_url(client.get(f"/m/{m.id}{screen}").text) is None, screen


def test_the_qr_helper_uses_the_base_url_with_its_path() -> None:
    from chukker.web.pages.matches import phone_qr

    class Req:
        base_url = "https://scores.example.org/chukker/"

    got = phone_qr(Req(), "2de229a092")  # type: ignore[arg-type]
    assert got["phone_url"] == "https://scores.example.org/chukker/m/2de229a092"
    assert qr_url(str(got["qr_svg"])) == got["phone_url"]
