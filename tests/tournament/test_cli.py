"""``chukker tournament check | standings | match``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from chukker.cli import build_app

EXAMPLE = Path(__file__).parents[2] / "examples" / "tournament" / "fall-classic.toml"
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(build_app(list(args)), list(args))
    return r.exit_code, r.stdout, r.stderr


def test_check_ok_and_problems(tmp_path: Path) -> None:
    code, out, _ = run("tournament", "check", str(EXAMPLE))
    assert code == 0 and "ok" in out
    bad = tmp_path / "t.toml"
    text = EXAMPLE.read_text().replace('record = "matches/', f'record = "{EXAMPLE.parent}/matches/')
    bad.write_text(text.replace('"ann",\n    "bea"', '"ann",\n    "zed"', 1))
    code, out, _ = run("tournament", "check", str(bad))
    assert code == 1
    assert "team potros: player zed is not in the register" in out


def test_an_unreadable_file_is_one_line_with_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text('format = "chukker-tournament/1"\nname = \n')
    code, out, err = run("tournament", "check", str(bad))
    assert code == 3 and out == ""
    assert err.count("\n") == 1 and "line 2, column" in err and "Traceback" not in err


def test_standings_json_and_table() -> None:
    code, out, _ = run("tournament", "standings", str(EXAMPLE), "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["name"] == "Fall Arena Classic"
    assert set(doc["stages"][0]) >= {"id", "kind", "complete", "table", "waiting"}
    code, out, _ = run("tournament", "standings", str(EXAMPLE))
    assert code == 0 and "Giles Farm above Los Potros: wins 3 to 1" in out


def test_match_writes_a_header_that_passes_check(tmp_path: Path) -> None:
    out_file = tmp_path / "f1.json"
    code, _, err = run("tournament", "match", str(EXAMPLE), "f1", "-o", str(out_file))
    assert code == 0, err
    rec = json.loads(out_file.read_text())
    assert rec["teams"]["A"]["name"] == "Giles Farm"
    # gus's handicap rose to 4 on the second day
    assert rec["teams"]["A"]["players"][0] == {"no": 1, "name": "Gus Giles", "handicap": 4}
    code, out, _ = run("check", str(out_file))
    assert code == 0, out
    code, _, err = run("tournament", "match", str(EXAMPLE), "nope")
    assert code == 1 and "no match 'nope'" in err


def test_export_csv_and_json() -> None:
    code, out, _ = run("tournament", "export", str(EXAMPLE), "--format", "csv", "--what", "matches")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("match,stage,start,arena,team_a,team_b,status,score_a")
    assert "a1,pool-a,2026-12-05T10:00:00,Arena 1,potros,giles,final,7,14,giles" in out
    code, out, _ = run(
        "tournament", "export", str(EXAMPLE), "--format", "csv", "--what", "standings"
    )
    assert "pool-b,3,zorros,3,1,2,21,23,-2,head_to_head" in out
    code, out, _ = run("tournament", "export", str(EXAMPLE))
    doc = json.loads(out)
    assert doc["matches"][0]["arena"] == "Arena 1" and doc["stages"][0]["id"] == "pool-a"


def test_bracket_svg_of_the_example() -> None:
    from chukker.tournament import load_path, standings
    from chukker.tournament.export import bracket_svg

    t = load_path(EXAMPLE)
    svg = bracket_svg(t, standings(t))
    assert svg.count('class="bm"') == 3 and 'font-weight="bold" data-team="giles"' in svg


def test_a_header_with_alternates_passes_check(tmp_path: Path) -> None:
    out_file = tmp_path / "s2.json"
    code, _, err = run("tournament", "match", str(EXAMPLE), "s2", "-o", str(out_file))
    assert code == 0, err
    rec = json.loads(out_file.read_text())
    assert rec["teams"]["B"]["alternates"] == [{"no": 4, "name": "Dan Potros", "handicap": 0}]
    assert run("check", str(out_file))[0] == 0


def test_register_import_and_schedule_generate(tmp_path: Path) -> None:
    t = tmp_path / "t.toml"
    t.write_text(
        'format = "chukker-tournament/1"\nname = "Cup"\n'
        '[[stages]]\nid = "pool"\nkind = "round-robin"\nteams = ["a", "b", "c", "d", "e"]\n'
        + "".join(f'[[teams]]\nid = "{x}"\nplayers = []\n' for x in "abcde")
    )
    csv = tmp_path / "players.csv"
    csv.write_text(
        "id,name,registered,handicap,from\nann,Ann Lee,2026,2,2025-05-01\n"
        "ann,Ann Lee,2026,3,2026-12-01\n"
    )
    out = tmp_path / "t2.toml"
    code, _, err = run("tournament", "register", str(t), "--csv", str(csv), "-o", str(out))
    assert code == 0, err
    from chukker.tournament import load_path

    ann = load_path(out).players["ann"]
    assert [(h.start.isoformat(), h.value) for h in ann.handicaps] == [
        ("2025-05-01", 2),
        ("2026-12-01", 3),
    ]
    code, _, err = run(
        "tournament",
        "schedule",
        str(out),
        "--generate",
        "--start",
        "2026-12-05T09:00",
        "--arena",
        "Arena 1",
        "-o",
        str(out),
    )
    assert code == 0, err
    t3 = load_path(out)
    assert len(t3.matches) == 10 and {m.arena for m in t3.matches.values()} == {"Arena 1"}
    ics = tmp_path / "day.ics"
    code, _, err = run("tournament", "schedule", str(out), "--ics", str(ics))
    assert code == 0 and ics.read_text().count("BEGIN:VEVENT") == 10
    bad = tmp_path / "bad.csv"
    bad.write_text("id,name\nx,y\n")
    code, _, err = run("tournament", "register", str(t), "--csv", str(bad))
    assert code == 3 and "lacks registered, handicap, from" in err


def test_schedule_a_bracket_from_the_pools(tmp_path: Path) -> None:
    t = tmp_path / "t.toml"
    t.write_text(
        'format = "chukker-tournament/1"\nname = "Cup"\n'
        '[[stages]]\nid = "pa"\nkind = "round-robin"\nteams = ["a", "b", "c"]\n'
        '[[stages]]\nid = "pb"\nkind = "round-robin"\nteams = ["d", "e", "f"]\n'
        + "".join(f'[[teams]]\nid = "{x}"\nplayers = []\n' for x in "abcdef")
    )
    code, _, err = run(
        "tournament",
        "schedule",
        str(t),
        "--generate",
        "--start",
        "2026-12-05T09:00",
        "--arena",
        "A1",
        "--arena",
        "A2",
        "--bracket",
        "cup=pa,pb:2",
        "-o",
        str(t),
    )
    assert code == 0, err
    from chukker.tournament import load_path

    tt = load_path(t)
    assert tt.stages["cup"].kind == "single-elimination"
    cup = [m for m in tt.matches.values() if m.stage == "cup"]
    assert [(m.id, m.teams[0].describe(), m.teams[1].describe()) for m in cup] == [
        ("cup-r1-1", "pa #1", "pb #2"),
        ("cup-r1-2", "pb #1", "pa #2"),
        ("cup-final", "winner cup-r1-1", "winner cup-r1-2"),
    ]
    last_pool = max(m.start for m in tt.matches.values() if m.stage != "cup" and m.start)
    assert all(m.start and m.start > last_pool for m in cup)


def test_schedule_a_six_entrant_bracket_with_third_place_and_consolation(tmp_path: Path) -> None:
    t = tmp_path / "t.toml"
    t.write_text(
        'format = "chukker-tournament/1"\nname = "Cup"\n'
        '[[stages]]\nid = "pool-a"\nkind = "round-robin"\nteams = ["a", "b", "c"]\n'
        '[[stages]]\nid = "pool-b"\nkind = "round-robin"\nteams = ["d", "e", "f"]\n'
        + "".join(f'[[teams]]\nid = "{x}"\nplayers = []\n' for x in "abcdef")
    )
    code, _, err = run(
        "tournament", "schedule", str(t), "--generate", "--start", "2026-12-05T09:00",
        "--arena", "A1", "--arena", "A2", "--bracket", "ko=pool-a,pool-b:3",
        "--third-place", "--consolation", "-o", str(t),
    )  # fmt: skip
    assert code == 0, err
    from chukker.tournament import load_path

    tt = load_path(t)
    ko = [m.id for m in tt.matches.values() if m.stage == "ko"]
    assert ko == ["ko-r1-1", "ko-r1-2", "ko-r2-1", "ko-r2-2", "ko-third", "ko-final"]
    cons = [m for m in tt.matches.values() if m.stage == "ko-consolation"]
    assert [(m.teams[0].describe(), m.teams[1].describe()) for m in cons] == [
        ("loser ko-r1-1", "loser ko-r1-2")
    ]
    code, out, err = run("tournament", "check", str(t))
    assert not [ln for ln in out.splitlines() if "stage ko" in ln or "match ko" in ln]
    code, _, err = run("tournament", "schedule", str(t), "--ics", str(tmp_path / "d.ics"))
    assert code == 0 and (tmp_path / "d.ics").read_text().count("BEGIN:VEVENT") == 6 + 7
    code, out, err = run("tournament", "standings", str(t), "--json")
    assert code == 0
    import json

    ko_stage = next(s for s in json.loads(out)["stages"] if s["id"] == "ko")
    assert [b["slot"] for b in ko_stage["byes"]] == ["pool-a #1", "pool-b #1"]


def test_schedule_a_double_forfeit_reads_both_forfeited() -> None:
    code, out, err = run("tournament", "standings", str(EXAMPLE))
    assert code == 0 and "b4: Lobos v Pumas: both forfeited" in out
    code, out, err = run("tournament", "schedule", str(EXAMPLE))
    assert code == 0, err
    b4 = next(ln for ln in out.splitlines() if " b4 " in ln)
    assert "both forfeited" in b4 and "0–3" not in b4 and "0-3" not in b4
    code, out, _ = run("tournament", "export", str(EXAMPLE), "--format", "csv", "--what", "matches")
    b4 = next(ln for ln in out.splitlines() if ln.startswith("b4,"))
    assert b4.endswith(",forfeit,lobos pumas")


def test_issue_42_tournament_new_writes_a_file_that_check_passes(tmp_path: Path) -> None:
    out = tmp_path / "cup.toml"
    code, _, err = run("tournament", "new", str(out), "--name", "Oak Cup", "--venue", "Oak Hill",
                       "--dates", "2026-12-05,2026-12-06", "--arenas", "Arena 1,Arena 2",
                       "--teams", "Reds,Blues,Greens")
    assert code == 0, err
    assert "3 teams, 3 pool matches" in err
    code, out_text, err = run("tournament", "check", str(out))
    assert code == 0 and "ok (3 teams, 3 matches" in out_text + err
    assert 'venue = "Oak Hill"' in out.read_text(encoding="utf-8")
    code, _, err = run("tournament", "new", str(out), "--teams", "A,B")
    assert code == 2 and "exists" in err  # never overwritten without --force
    code, _, err = run("tournament", "new", str(tmp_path / "x.json"), "--teams", "Solo")
    assert code == 2 and "at least two teams" in err


def test_issue_42_register_says_what_it_did(tmp_path: Path) -> None:
    t = tmp_path / "cup.toml"
    assert run("tournament", "new", str(t), "--teams", "Reds,Blues", "--dates",
               "2026-12-05")[0] == 0
    csv = tmp_path / "reg.csv"
    csv.write_text("id,name,registered,handicap,from\nreds-1,Ann,2026,2,2026-12-01\n"
                   "zed,Zed,2026,1,2025-05-01\n", encoding="utf-8")
    code, _, err = run("tournament", "register", str(t), "--csv", str(csv), "-o",
                       str(tmp_path / "out.toml"))
    assert code == 0
    assert "2 players read: 1 added, 1 updated (1 handicap change), 0 unchanged" in err
