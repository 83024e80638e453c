"""The groom's page (issue 42): "now: split" with the mount change's countdown while the
split horses must come in; read by player (the plan, the horse ridden now, the next one);
linked from the created page, the spectators' page and the sheet; a plan's unknown horse
said with the team's name and the closest horse."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from chukker.live import Clock, hash_token, new_match_id
from chukker.store import StoredEvent, open_store
from chukker.web.demo import DEMO_HEADER

#: Blue's string and the grooms' plan
MOUNTS = [{"id": "bay", "name": "Bay"}, {"id": "comet", "name": "Comet"},
          {"id": "dora", "name": "Dora"}, {"id": "echo", "name": "Echo"}]
PLAN = {"1": ["bay", "comet"], "2": ["dora", "echo"]}


def groom_match(db: Path, ago_ms: int, whistle_s: float | None) -> str:
    """A match on ``db`` whose first period started ``ago_ms`` ago: Blue's players 1 and 2
    saddled as planned before the bowl-in, a whistle at ``whistle_s`` (past 3:30 of running
    time: the split horn sounds then)."""
    h = copy.deepcopy(DEMO_HEADER)
    h["options"]["split_periods"] = True
    a = next(iter(h["teams"]))
    h["teams"][a]["mounts"] = MOUNTS
    h["teams"][a]["plan"] = PLAN
    store = open_store(db)
    now = Clock().now_ms()
    mid = new_match_id()
    start = now - ago_ms
    store.create_match(mid, h, start, hash_token("tk-" + mid), hash_token("cm-" + mid))
    events = [{"type": "mount", "team": a, "player": 1, "mount": "bay", "at": 0.0},
              {"type": "mount", "team": a, "player": 2, "mount": "dora", "at": 0.0},
              {"type": "bowl_in", "at": 0.0}]
    if whistle_s is not None:
        events.append({"type": "whistle", "at": whistle_s})
    for i, ev in enumerate(events, 1):
        at = start + round(float(ev["at"]) * 1000)
        store.append(mid, StoredEvent(i, f"c{i}", ev, at, "timekeeper"), start)
    store.close()
    return mid


def test_rule_5_split_the_grooms_page_says_now_split_with_the_countdown(
        db_path: Path, server_factory: Any) -> None:
    mid = groom_match(db_path, ago_ms=230_000, whistle_s=215.0)
    with server_factory(db_path) as srv, srv.client() as c:
        html = c.get(f"/m/{mid}/mounts?part=1").text
    assert "now: split" in html and "left for the mount change" in html
    comet = html.split('<span class="horse-name">Comet</span>')[1].split("</li>")[0]
    assert "now: split" in comet and 'data-left-ms="' in comet
    # read by player: the horse ridden now, the next one, the plan
    assert "riding <strong>Bay</strong>" in html
    assert "next horse: <strong>Comet</strong> (at the split)" in html
    assert "plan: Bay → Comet" in html


def test_the_grooms_page_before_the_split_counts_down_to_it(
        db_path: Path, server_factory: Any) -> None:
    mid = groom_match(db_path, ago_ms=100_000, whistle_s=None)
    with server_factory(db_path) as srv, srv.client() as c:
        html = c.get(f"/m/{mid}/mounts?part=1&lang=es").text
    assert "ahora" not in html  # the horn is ahead
    assert "al cambio de caballo" not in html
    assert "tiempo hasta el cambio de caballo" in html


def test_the_grooms_page_is_linked_from_created_spectators_and_sheet(
        client: Any, make_match: Any) -> None:
    m = make_match(client)
    link = f'href="/m/{m.id}/mounts'
    assert link in client.get(f"/m/{m.id}").text
    assert link in client.get(f"/m/{m.id}/sheet").text
    assert link in client.get(f"/m/{m.id}/created").text


def test_a_plans_unknown_horse_names_the_team_and_the_closest_horse(client: Any) -> None:
    from chukker.web.officials.new_match import plan_name_error
    from chukker.web.refusals import setup_said

    e = plan_name_error({"team_A_name": "Blue"}, "A", 1, 0, "Comit", ["Bay", "Comet"])
    assert str(e).endswith("'Comit' is not in Blue's string: did you mean Comet?")
    assert "¿quiso decir Comet?" in setup_said(e.code, e.params, "es", str(e))
    far = plan_name_error({}, "B", 2, 1, "Zzz", ["Bay", "Comet"])
    assert far.code == "plan_mount_not_listed" and "White" in str(far)
