"""What the two Schemathesis files share (``test_schemathesis.py``, the fuzzing, and
``test_schemathesis_contract.py``, the OpenAPI contract): the app on a throw-away SQLite
file, its OpenAPI schema, a real match, the hooks that send half the requests to that
match and with its tokens, and the bounded, deterministic settings of a test per
operation. Each file keeps what is its own (its checks, its body hooks, its formats)."""

from __future__ import annotations

import atexit
import copy
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.python import asgi as st_asgi  # noqa: E402

from chukker.web import create_app  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402
from chukker.web.security import Throttle  # noqa: E402


def examples(default: int) -> int:
    """Examples per operation: ``default``, or ``CHUKKER_FUZZ_EXAMPLES`` for a longer run."""
    return int(os.environ.get("CHUKKER_FUZZ_EXAMPLES", str(default)))


def bearer(token: str) -> str:
    return "Bearer " + token


def throwaway_app(prefix: str, organiser: str, *, tournaments: bool = False) -> Any:
    """The app on a fresh SQLite file, removed at exit; bad tokens are still counted and
    blocked, never slept on. ``tournaments``: its tournament files in the same folder
    (unless ``CHUKKER_TOURNAMENTS_DIR`` is set)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    if tournaments:
        os.environ.setdefault("CHUKKER_TOURNAMENTS_DIR", str(Path(folder) / "tournaments"))
    # the settings' throttle (3 free, 30 to a block, 600 s), never sleeping
    return create_app(Path(folder) / "app.sqlite3", organiser=organiser,
                      throttle=Throttle(max_delay=0.0))


def schema_of(app: Any, path_regex: str, max_examples: int) -> Any:
    """The app's OpenAPI as Schemathesis reads it, the paths matching ``path_regex``;
    a stream is read to its first message (the state), then closed."""
    schema = schemathesis.openapi.from_asgi("/openapi.json", app).include(path_regex=path_regex)
    schema.config.generation.update(max_examples=max_examples)
    schema.config.max_stream_events = 1
    return schema


def operations(app: Any, prefixes: tuple[str, ...]) -> list[str]:
    """The operations under ``prefixes``, one test each: ``["GET /api/time", ...]``."""
    return sorted(f"{method.upper()} {path}" for path, ops in app.openapi()["paths"].items()
                  if path.startswith(prefixes) for method in ops)


def create_match(app: Any, organiser: str,
                 events: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """A match of the stock header created with the organiser's token, ``events`` posted
    by its timekeeper; the creation's answer (its id and tokens)."""
    with st_asgi.get_client(app) as c:
        r = c.post("/api/matches", json=copy.deepcopy(DEMO_HEADER),
                   headers={"authorization": bearer(organiser)})
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
        auth = {"authorization": bearer(body["timekeeper_token"])}
        for i, event in enumerate(events):
            e = c.post(f"/api/matches/{body['match_id']}/events", headers=auth,
                       json={"command_id": f"seed-{i}", "event": dict(event)})
            assert e.status_code == 201, e.text
    return body


def to_the_real_match(schema: Any, known: Mapping[str, Any], *,
                      without_token: bool = False) -> None:
    """Hooks on ``schema``: half the requests go to the real match (``known["match_id"]``,
    so that they get past the lookup), and the headers are the generated ones or carry
    each of ``known["tokens"]`` (``without_token``: or no ``Authorization`` at all).
    ``known`` is read when the requests are generated (a fixture fills it)."""

    def flatmap_path_parameters(ctx: Any, params: dict[str, Any] | None) -> Any:
        if not params or "match_id" not in params:
            return st.just(params)
        return st.sampled_from([params, {**params, "match_id": known["match_id"]}])

    def flatmap_headers(ctx: Any, headers: dict[str, Any] | None) -> Any:
        base = dict(headers or {})
        choices = [base]
        if without_token:
            choices.append({k: v for k, v in base.items() if k.lower() != "authorization"})
        choices += [{**base, "authorization": bearer(t)} for t in known["tokens"]]
        return st.sampled_from(choices)

    schema.hook(flatmap_path_parameters)
    schema.hook(flatmap_headers)


def requests_of(schema: Any, label: str,
                positive: Callable[[Any], Any] | None = None) -> Any:
    """Valid and invalid requests of one operation (``"POST /api/matches"``), the hooks
    applied; ``positive`` is applied to each valid one."""
    method, path = label.split(" ", 1)
    op = schema[path][method]
    valid = op.as_strategy(GenerationMode.POSITIVE)
    if positive is not None:
        valid = valid.map(positive)
    return st.one_of(valid, op.as_strategy(GenerationMode.NEGATIVE))


def bounded(max_examples: int,
            phases: Sequence[Phase] = (Phase.explicit, Phase.generate)) -> Any:
    """Hypothesis's settings of these tests: deterministic, no deadline, no database."""
    return settings(derandomize=True, deadline=None, database=None, max_examples=max_examples,
                    suppress_health_check=list(HealthCheck), phases=list(phases))
