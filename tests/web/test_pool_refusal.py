"""A worker pool's refusal is one answer wherever heavy work is asked for
(``chukker.web.shared.render.pool_refusal``): 503 with ``Retry-After`` when the pool is
full, 422 without it past a worker's limit, the sentence in the caller's language. The
review upload and its *Inspect* button say it on the upload page with the refusal's code;
a rule page and the rulebook's search say it on the rules' own page."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.web.conftest import OPEN

from chukker.web import create_app
from chukker.web.heavy import Busy, Kind, OverLimit, Pools
from chukker.web.refusals import refusal_message

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gps"


def _review(c: TestClient) -> Any:
    files = {"file": ("session.toml", (EXAMPLE / "session.toml").read_bytes()),
             "fixes": ("session-fixes.csv", (EXAMPLE / "session-fixes.csv").read_bytes())}
    return c.post("/plays/review?lang=it", files=files, follow_redirects=False)


def _inspect(c: TestClient) -> Any:
    files = {"devices": ("a.csv", (EXAMPLE / "session-fixes.csv").read_bytes())}
    return c.post("/plays/review?lang=it", data={"inspect": "1"}, files=files,
                  follow_redirects=False)


def _search(c: TestClient) -> Any:
    return c.get("/rules/search?q=foul&lang=it")


#: each door that asks a pool for heavy work, its pool and whether the upload page answers
_DOORS: list[tuple[str, Callable[[TestClient], Any], Kind, bool]] = [
    ("review", _review, Kind.PLAYS, True), ("inspect", _inspect, Kind.PLAYS, True),
    ("rules search", _search, Kind.RULES, False)]


@pytest.mark.parametrize("refusal", ["busy", "over_limit"])
@pytest.mark.parametrize(("door", "ask", "kind", "upload_page"), _DOORS)
def test_a_pool_refusal_is_one_translated_answer_with_retry_after_only_when_full(
    tmp_path: Path, door: str, ask: Callable[[TestClient], Any], kind: Kind,
    upload_page: bool, refusal: str,
) -> None:
    exc = Busy(kind, 3) if refusal == "busy" else OverLimit(kind, "memory")
    pools = Pools()
    real = pools.run

    async def refused(asked: Kind, address: str, fn: Callable[..., Any],
                      args: list[Any] | tuple[Any, ...]) -> Any:
        if asked is kind:
            raise exc
        return await real(asked, address, fn, args)

    pools.run = refused  # type: ignore[method-assign]  # before the app is made
    app = create_app(tmp_path / "refused.sqlite3", **OPEN, heavy=pools)
    with TestClient(app) as c:
        r = ask(c)
    assert r.status_code == (503 if refusal == "busy" else 422), (door, r.text)
    assert r.headers.get("retry-after") == ("3" if refusal == "busy" else None)
    assert r.headers["content-type"].startswith("text/html")
    said = refusal_message(exc.code, exc.params, "it")
    assert said != refusal_message(exc.code, exc.params, "en")  # in Italian
    assert said in r.text
    if upload_page:
        assert r.headers["x-chukker-refusal"] == exc.code
        assert f'data-code="{exc.code}"' in r.text
