"""The review of a match's tracks (``/plays/review``): the anonymous upload (bounded:
files, bytes, the plays pool), the session written for device files, and the review's
page, drawing and candidates as CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response
from markupsafe import Markup

from chukker.plays.render_svg import render_svg
from chukker.plays.words import describe, player_name
from chukker.web.heavy import Busy, OverLimit
from chukker.web.public.plays_base import (
    T,
    base_of,
    context,
    drawn_or_refusal,
    gettext_in,
    lang_of,
    page,
    refused,
)


async def review_form(request: Request) -> Response:
    lang = lang_of(request)
    if request.method == "POST":
        return await _upload(request, lang)
    return page("plays/review_upload.html", **context(request, lang))


def analyse_upload(folder: str, main: str, names: dict[str, str]) -> Any:
    """Analyse the upload kept in ``folder`` (run in the plays pool's worker process).

    ``main`` is the file's name, ``names`` the request's other files: the only ones
    a GPS session may name. The review is kept by the server, not by the worker."""
    from chukker.plays.review import analyse_file

    root = Path(folder)
    files = {name: root / stored for name, stored in names.items()}
    return analyse_file(root / "main" / main, main, files, keep=False)


def inspect_upload(folder: str, names: list[str], corners: str | None) -> list[dict[str, Any]]:
    """``chukker plays inspect`` on the device files of an upload (run in the plays pool's
    worker process): ``names`` are the files' own names, stored as ``f0``, ``f1``, ...
    in ``folder`` (a name never becomes a path)."""
    from chukker.plays.gps_sessions import parse_corners
    from chukker.plays.inspect import inspect_files

    arena = parse_corners(corners) if corners else None
    paths = [Path(folder) / f"f{i}" for i in range(len(names))]
    return inspect_files(paths, arena, names)


async def _inspect(request: Request, lang: str, form: Any,
                   uploads: list[tuple[str, Any]]) -> Response:
    """The "device files alone" form's *Inspect* button: the same summary per file as
    ``chukker plays inspect``, before any session is written. The door is the upload's
    (anonymous, body and files capped, the plays pool: see :func:`_upload`)."""
    import shutil
    import tempfile

    from starlette.concurrency import run_in_threadpool

    from chukker.limits import REVIEW_BODY_BYTES, LimitError
    from chukker.plays.tracking import TrackingError
    from chukker.web.heavy import Kind
    from chukker.web.refusals import refusal_message
    from chukker.web.security import client_address
    from chukker.web.state import pools

    devices = [up for k, up in uploads if k == "devices"]
    if not devices:
        return refused(request, lang, 400, T[lang]["devices_files"])
    corners = form.get("corners")
    corners = corners.strip() if isinstance(corners, str) and corners.strip() else None
    names = [Path(str(up.filename)).name or f"file{i}" for i, up in enumerate(devices)]
    tmp = tempfile.mkdtemp(prefix="chukker-inspect-")
    try:
        for i, up in enumerate(devices):
            await run_in_threadpool(_copy_upload, up.file, Path(tmp) / f"f{i}",
                                    REVIEW_BODY_BYTES)
        rows = await pools(request.app).run(
            Kind.PLAYS, client_address(request), inspect_upload, [tmp, names, corners])
    except LimitError as exc:
        return refused(request, lang, 413, refusal_message(exc.code, exc.params, lang),
                        exc.code)
    except (Busy, OverLimit) as exc:
        return _pool_refused(request, lang, exc)
    except (TrackingError, ValueError) as exc:
        return refused(request, lang, 400, str(exc)[:300])
    finally:
        await run_in_threadpool(shutil.rmtree, tmp, True)
        await form.close()
    return page("plays/review_upload.html", 200, inspected=rows, has_arena=corners is not None,
                 corners_text=corners or "",
                 **context(request, lang))  # fmt: skip


def _pool_refused(request: Request, lang: str, exc: Busy | OverLimit) -> Response:
    """The plays pool's refusal on the upload page, its code on the alert and header."""
    from chukker.web.shared.render import pool_refusal

    return pool_refusal(exc, lang, lambda status, words: refused(request, lang, status, words,
                                                                 exc.code))


def _copy_upload(src: Any, dest: Path, cap: int) -> int:
    """Copy a spooled upload to ``dest`` in chunks; the bytes copied (refused over ``cap``)."""
    from chukker.limits import verify_size

    n = 0
    with dest.open("wb") as out:
        while chunk := src.read(1 << 20):
            n += len(chunk)
            verify_size(n, cap, dest.name)
            out.write(chunk)
    return n


async def _upload(request: Request, lang: str) -> Response:
    """``POST /plays/review``: anonymous, but bounded so that it cannot matter.

    The body is capped (:data:`chukker.limits.REVIEW_BODY_BYTES`, by the app's guard)
    and spooled to disk by the form parser; the files are copied to a private folder
    and analysed by the plays pool (:mod:`chukker.web.heavy`: a worker process with a
    memory cap and a wall clock, one request per address, 503 when full). A GPS
    session may name only files of the same request."""
    import shutil
    import tempfile

    from starlette.concurrency import run_in_threadpool

    from chukker.limits import REVIEW_BODY_BYTES, LimitError
    from chukker.plays.review import remember
    from chukker.plays.tracking import TrackingError
    from chukker.web.heavy import Kind
    from chukker.web.refusals import refusal_message
    from chukker.web.security import client_address
    from chukker.web.state import pools

    try:
        size = int(request.headers.get("content-length", "0"))
    except ValueError:
        size = 0
    if size > REVIEW_BODY_BYTES:
        return refused(request, lang, 413, f"> {REVIEW_BODY_BYTES // 2**20} MB")
    form = await request.form(max_files=MAX_REVIEW_FILES, max_fields=2 * MAX_REVIEW_FILES + 4)
    uploads = [(k, v) for k, v in form.multi_items() if not isinstance(v, str) and v.filename]
    main = form.get("file")
    if form.get("inspect"):
        return await _inspect(request, lang, form, uploads)
    written: str | None = None
    if main is None or isinstance(main, str) or not main.filename:
        try:
            written = _written_session(form, uploads)
        except ValueError as exc:
            return refused(request, lang, 400, str(exc)[:300])
        if written is None:
            return page("plays/review_upload.html", 400, error=T[lang]["bad_file"],
                         **context(request, lang))  # fmt: skip
    tmp = tempfile.mkdtemp(prefix="chukker-review-")
    try:
        (Path(tmp) / "main").mkdir()
        if written is not None:
            name = "session.toml"
            (Path(tmp) / "main" / name).write_text(written, encoding="utf-8")
        else:
            assert main is not None and not isinstance(main, str)
            name = Path(str(main.filename)).name or "upload"
        names: dict[str, str] = {}
        for i, (key, up) in enumerate(uploads):
            base = Path(str(up.filename)).name or f"file{i}"
            if key == "file" and up is main:
                dest = Path(tmp) / "main" / name
            else:
                names[base] = f"f{i}"
                dest = Path(tmp) / f"f{i}"
            await run_in_threadpool(_copy_upload, up.file, dest, REVIEW_BODY_BYTES)
        rv = await pools(request.app).run(
            Kind.PLAYS, client_address(request), analyse_upload, [tmp, name, names]
        )
    except LimitError as exc:
        status = 400 if exc.code == "not_in_upload" else 413
        return refused(request, lang, status, refusal_message(exc.code, exc.params, lang),
                        exc.code)
    except (Busy, OverLimit) as exc:
        return _pool_refused(request, lang, exc)
    except (TrackingError, OSError, ValueError) as exc:
        text = str(exc).replace(tmp + "/main/", "").replace(tmp + "/", "")
        return refused(request, lang, 400, text[:300])
    finally:
        await run_in_threadpool(shutil.rmtree, tmp, True)
        await form.close()
    remember(rv)
    if written is not None:
        WRITTEN[rv.id] = written
        while len(WRITTEN) > 64:
            WRITTEN.pop(next(iter(WRITTEN)))
    return RedirectResponse(f"{base_of(request)}/review/{rv.id}?lang={lang}", status_code=303)


MAX_REVIEW_FILES = 16
"""Files in one review upload: a session, its fixes or ball, or one file per device."""

WRITTEN: dict[str, str] = {}
"""The sessions written for device files alone, by review id (the newest 64)."""


def _written_session(form: Any, uploads: list[tuple[str, Any]]) -> str | None:
    """The session TOML for device files picked alone (``devices``), their entities
    (``entity:NAME``, team:number), offsets (``offset:NAME``, seconds) and the four
    corners (``corners``: clicked on the drawn tracks, or pasted from
    ``chukker plays arena``); ``None`` when the form holds no such files."""
    from chukker.plays.gps_sessions import device_session_text, parse_corners

    names = [Path(str(up.filename)).name for k, up in uploads if k == "devices"]
    if not names:
        return None
    corners = form.get("corners")
    if not isinstance(corners, str) or not corners.strip():
        raise ValueError("corners: click the four corners (sw, nw, ne, se) on the tracks, "
                         "or paste the [arena] of 'chukker plays arena'")
    units: dict[str, tuple[str, float]] = {}
    for n in names:
        ent = form.get(f"entity:{n}")
        if not isinstance(ent, str) or not ent.strip():
            raise ValueError(f"{n}: choose its rider (team:number)")
        off = form.get(f"offset:{n}") or "0"
        try:
            offset = float(str(off))
        except ValueError:
            raise ValueError(f"{n}: offset: expected seconds") from None
        units[n] = (ent.strip(), offset)
    return device_session_text(units, parse_corners(corners))


async def review_session(request: Request) -> Response:
    """``GET /plays/review/{rid}.toml``: the session written for a device-files upload."""
    text = WRITTEN.get(str(request.path_params["rid"]))
    if text is None:
        return PlainTextResponse("no such session\n", 404)
    return PlainTextResponse(text, media_type="application/toml", headers={
        "content-disposition": 'attachment; filename="session.toml"'})


def _review(request: Request) -> Any:
    from chukker.plays.review import REVIEWS

    return REVIEWS.get(str(request.path_params["rid"]))


def review_parts(rv: Any, lang: str, pick: int, period: str) -> dict[str, Any]:
    """What a review page draws: the candidates, the picked moment's diagram, the timeline
    and the coach's figures with a heat map per player (in a worker of the drawings pool:
    a long session's heat maps and moments are seconds of NumPy and SVG)."""
    from chukker.plays.coach import heat_svg, periods
    from chukker.plays.review import moment, rows, rule_number, utc
    from chukker.plays.words import number

    dur = max(rv.duration, 1e-9)
    cands = []
    for i, c in enumerate(rv.candidates):
        cands.append(
            {
                "i": i,
                "clause": str(c.clause),
                "who": player_name(c.who, lang),
                "start": f"{c.start:.2f}",
                "end": f"{c.end:.2f}",
                "utc": utc(rv, c.start),
                "text": describe(c, lang),
                "left": f"{100 * c.start / dur:.3f}",
                "width": f"{max(0.4, 100 * (c.end - c.start) / dur):.3f}",
                "rule": f"/rules/uspa-arena-2026/{lang}/{rule_number(str(c.clause))}/{c.clause}",
            }
        )
    svg = None
    if 0 <= pick < len(rv.candidates):
        sc = moment(rv, pick, lang)
        svg = {"svg": render_svg(sc, lang), "duration": f"{sc.duration:g}", **cands[pick]}
    timeline = [
        {
            "clause": r.clause,
            "who": player_name(r.player, lang),
            "items": [cands[i] for i in r.items],
        }
        for r in rows(rv)
    ]
    pers = periods(rv.tracking)
    try:
        pk = min(max(1, int(period)), max(1, len(pers)))
    except ValueError:
        pk = 1
    coach = None
    if pers:
        per = pers[pk - 1]
        coach = {
            "numbers": [p.number for p in pers],
            "picked": pk,
            "span": f"{per.start:.0f}–{per.end:.0f} s",
            "players": [
                {
                    "who": player_name(str(st.player), lang),
                    "distance": number(st.distance_yd, lang, 0),
                    "gallop": number(st.gallop_s, lang, 1),
                    "top": number(st.max_speed_yd_s, lang, 1),
                    "heat": heat_svg(
                        st,
                        f"{T[lang]['heat']}: {player_name(str(st.player), lang)}",
                        rv.tracking.length,
                        rv.tracking.width,
                        2.0,
                    ),
                }
                for st in per.stats
            ],
        }
    return {"candidates": cands, "moment": svg, "timeline": timeline, "coach": coach}


async def review_page(request: Request) -> Response:
    lang = lang_of(request)
    rv = _review(request)
    if rv is None:
        return page("plays/review_upload.html", 404, error=T[lang]["unknown_review"],
                     **context(request, lang))  # fmt: skip
    try:
        pick = int(request.query_params.get("c", "0"))
    except ValueError:
        pick = 0
    period = request.query_params.get("p", "1")[:8]
    parts = await drawn_or_refusal(request, ("review", rv.id, lang, pick, period), review_parts,
                                   [rv, lang, pick, period], lang=lang, page=True)
    if isinstance(parts, Response):
        return parts
    svg = parts["moment"]
    if svg is not None:
        svg = svg | {"svg": Markup(svg["svg"])}
    coach = parts["coach"]
    if coach is not None:
        coach = coach | {"players": [p | {"heat": Markup(p["heat"])} for p in coach["players"]]}
    units = [u.to_json() | {"unit": u.unit} for u in rv.session.units] if rv.session else []
    return page(
        "plays/review.html",
        rv=rv,
        rid=rv.id,
        written=WRITTEN.get(rv.id),
        file_name=rv.name,
        duration=f"{rv.duration:.1f}",
        candidates=parts["candidates"],
        timeline=parts["timeline"],
        moment=svg,
        pick=pick,
        units=units,
        coach=coach,
        not_run=[(c, gettext_in(lang, why)) for c, why in sorted(rv.not_run.items())],
        **context(request, lang),
    )


async def review_csv(request: Request) -> Response:
    from chukker.plays.review import candidates_csv

    rv = _review(request)
    if rv is None:
        return Response("no such review", status_code=404)
    return Response(
        candidates_csv(rv, lang_of(request)),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{rv.id}-candidates.csv"'},
    )

