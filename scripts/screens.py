"""Screenshots of every screen, in every state, at every size, for review.

    .venv/bin/python scripts/screens.py [OUT] [--only display,overlay] [--sizes 1366x768]

Starts chukker on a throw-away SQLite file, creates a match with the longest
names the record allows and the finished demo match, and writes
``OUT/<screen>-<state>-<W>x<H>.png`` (default OUT: ``screens/``) for the big
screen, the overlay, the phone view and the console in each state of
:data:`chukker.web.demo.SCREEN_STATES`, plus the other pages (home, new match,
score sheet, rules, plays) and, with ``--pages``, every other page a person meets:
the created page, a rule, the glossary, a search, a play, a tournament (schedule
and pool table, bracket, a team, a match card, an arena's big screen and console),
a missing page and a quarantined match, each at every size. Needs Playwright and
Debian's chromium.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from chukker.live import hash_token
from chukker.store import StoredEvent, open_store
from chukker.web import create_app
from chukker.web.demo import DEMO_HEADER, seed_finished_match, state_reports

SIZES = [(1280, 720), (1366, 768), (1920, 1080), (3840, 2160), (360, 740), (390, 844),
         (430, 932)]
LONG_NAMES = ("Club Atlético de Polo de Arena San Martín de los Andes Norte",
              "Saint Giles Arena Polo Club of the Upper Thames Valley Shire")
SCREENS = {"display": "/display", "overlay": "/overlay", "spectator": "", "console": "/console"}
#: the big screen and the overlay are not for phones
PHONE_SCREENS = {"spectator", "console"}
SHOW = """(rep) => {
  rep = JSON.parse(JSON.stringify(rep));
  rep.server_time = window.chukker.serverNow();
  window.chukker.update(rep, { kind: "state" });
}"""


def serve(db: Path) -> tuple[str, Any]:
    app = create_app(db, organiser="screens-organiser", open_mode=True, open_rate=(1000, 1000))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server


def quarantine(store: Any) -> None:
    """A stored match the engine cannot replay (a foul with a clause nested 500 deep)."""
    clause: Any = "x"
    for _ in range(500):
        clause = [clause]
    store.create_match("quarantined1", DEMO_HEADER, 1, hash_token("tk"), hash_token("cm"))
    store.append("quarantined1", StoredEvent(1, "c1", {"type": "bowl_in", "at": 0.0}, 1,
                                             "timekeeper"), 1)
    store.append("quarantined1", StoredEvent(2, "c2", {"type": "foul", "team": "A",
                                                       "penalty": "3", "clause": clause,
                                                       "at": 1.0}, 2, "timekeeper"), 1)


def first_link(html: str, pattern: str) -> str:
    m = re.search(r'href="(' + pattern + r')(?:\?[^"]*)?"', html)
    return m.group(1).replace("&amp;", "&") if m else ""


def other_pages(base: str, which: str, finished: str, mid: str, secrets: str,
                sizes: list[tuple[int, ...]]) -> list[tuple[str, str, int, int]]:
    """Every page a person meets besides the live views, at every size."""
    if not which or which == "none":
        return []
    import httpx

    toml = (Path(__file__).parent.parent / "examples/tournament/fall-classic.toml").read_text(
        encoding="utf-8")
    t = httpx.post(base + "/tournaments/api", json={"text": toml}).json()
    tid = t["tournament_id"]
    arena = next(v for k, v in t["arenas"].items() if k != "-")
    arena_display = arena["console"].split(base, 1)[1].replace("/console#", "/display#")
    first_match = sorted(t["matches"])[0]
    rules = httpx.get(base + "/rules/").text
    rule = first_link(rules, r"/rules/[a-z0-9-]+/en/\d+") or "/rules/uspa-arena-2026/en/5"
    glossary = first_link(rules, r"/rules/glossary/[a-z]+") or "/rules/glossary/en"
    plays = httpx.get(base + "/plays/").text
    play = first_link(plays, r"/plays/(?!review)[a-z0-9_-]+") or "/plays/"
    pages = {
        "home": "/", "new": "/new", "created": f"/m/{mid}/created#{secrets}",
        "sheet": f"/m/{finished}/sheet", "finished-spectator": f"/m/{finished}",
        "rules": "/rules/", "rule": rule, "glossary": glossary,
        "search": "/rules/search?q=penalty", "plays": "/plays/", "play": play,
        "tournaments": "/tournaments", "tournament": f"/tournaments/{tid}",
        "team": f"/tournaments/{tid}/teams/potros",
        "match-card": f"/tournaments/{tid}/matches/{first_match}",
        "arena-display": arena_display, "arena-console": arena["console"].split(base, 1)[1],
        "learn": "/learn/", "learn-test": "/learn/test", "keys": "/help/keys",
        "missing": "/m/nosuchmatch", "quarantined": "/m/quarantined1", "docs": "/docs",
    }
    chosen = list(pages) if which == "all" else which.split(",")
    return [(n, pages[n], w, h) for n in chosen for w, h in sizes]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default="screens", type=Path)
    ap.add_argument("--only", default="",
                    help="comma-separated live screens (default: all; none: none)")
    ap.add_argument("--sizes", default="", help="e.g. 1366x768,390x844 (default: all)")
    ap.add_argument("--lang", default="en")
    ap.add_argument("--pages", default="", help="only these other pages (comma-separated; "
                    "'all' for every one, 'none' for none; default: the short list)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",") if s] or SIZES
    only = [] if args.only == "none" else [s for s in args.only.split(",") if s] or list(SCREENS)
    tmp = Path(tempfile.mkdtemp())
    os.environ["CHUKKER_TOURNAMENTS_DIR"] = str(tmp / "tournaments")
    db = tmp / "screens.sqlite3"
    store = open_store(db)
    finished = seed_finished_match(store, int(time.time() * 1000))
    quarantine(store)
    store.close()
    base, server = serve(db)
    import httpx

    h = {**DEMO_HEADER, "teams": {k: {**t, "name": n} for (k, t), n in zip(
        DEMO_HEADER["teams"].items(), LONG_NAMES, strict=True)}}
    created = httpx.post(base + "/api/matches", json=h).json()
    mid, tk = created["match_id"], created["timekeeper_token"]
    reports = state_reports(LONG_NAMES, score=(14, 12))
    n = 0
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--headless", "--no-sandbox", "--disable-gpu"])
        for screen in only:
            phone = [s for s in sizes if s[0] < 600]
            desk = [s for s in sizes if s[0] >= 600]
            for w, hgt in desk + (phone if screen in PHONE_SCREENS else []):
                page = b.new_page(viewport={"width": w, "height": hgt})
                frag = f"#token={tk}" if screen == "console" else ""
                page.goto(f"{base}/m/{mid}{SCREENS[screen]}?lang={args.lang}{frag}")
                page.wait_for_function("() => window.chukker && window.chukker.state")
                for state, rep in reports.items():
                    page.evaluate(SHOW, rep)
                    page.wait_for_timeout(60)
                    page.screenshot(path=out / f"{screen}-{state}-{w}x{hgt}.png",
                                    full_page=screen in PHONE_SCREENS,
                                    omit_background=screen == "overlay")
                    n += 1
                page.close()
        for name, path, w, hgt in other_pages(
            base, args.pages, finished, mid, f"tk={tk}&cm={created['committee_token']}", sizes) or (
                                  ("home", "/", 1366, 768), ("home", "/", 390, 844),
                                   ("new", "/new", 1366, 768), ("new", "/new", 390, 844),
                                   ("sheet", f"/m/{finished}/sheet", 1366, 768),
                                   ("sheet", f"/m/{finished}/sheet", 390, 844),
                                   ("finished-spectator", f"/m/{finished}", 390, 844),
                                   ("finished-display", f"/m/{finished}/display", 1366, 768),
                                   ("rules", "/rules/", 1366, 768),
                                   ("rules", "/rules/", 390, 844),
                                   ("plays", "/plays/", 1366, 768),
                                   ("plays", "/plays/", 390, 844),
                                   ("docs", "/docs", 1366, 768)):
            page = b.new_page(viewport={"width": w, "height": hgt})
            sep = "&" if "?" in path else "?"
            frag = ""
            if "#" in path:
                path, frag = path.split("#", 1)
                frag = "#" + frag
            page.goto(f"{base}{path}{sep}lang={args.lang}{frag}")
            page.wait_for_timeout(400)
            try:
                page.screenshot(path=out / f"page-{name}-{w}x{hgt}.png", full_page=True)
            except Exception as e:
                print(f"page-{name}-{w}x{hgt}: {e}".splitlines()[0], file=sys.stderr)
            page.close()
            n += 1
        b.close()
    server.should_exit = True
    print(f"{n} screenshots in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
