"""The page catalogs are merged into one (``chukker.i18n``): a message id in two of the
files must be said the same way in both, or one concern's words silently replace the
other's (the sheet once said a clock correction was "deshecho", the whistle's word)."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

from chukker.i18n import LOCALES


@pytest.mark.parametrize("lang", ["es", "it"])
def test_a_message_in_two_catalogs_is_said_one_way(lang: str) -> None:
    said: dict[str, tuple[str, str]] = {}
    clashes = []
    for po in sorted((LOCALES / lang / "LC_MESSAGES").glob("*.po")):
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang)
        for m in catalog:
            if not m.id or not isinstance(m.id, str) or m.context:
                continue
            text = str(m.string)
            if m.id in said and said[m.id][1] != text:
                clashes.append((m.id, said[m.id], (po.name, text)))
            said.setdefault(m.id, (po.name, text))
    assert clashes == []
