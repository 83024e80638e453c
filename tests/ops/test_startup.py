"""`chukker serve` start-up: the port first, then the database, then secrets and (only with
--demo) demo content; a failure is one line and exit 2 and leaves no database behind
(issue 19 item 8, issue 21 item 1). Also `config --config` on a file that is not one."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from tests import ports

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    e["PYTHONPATH"] = str(ROOT / "src")
    return e


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "chukker.cli", *args], cwd=cwd, env=env(),
                          capture_output=True, text=True, timeout=120, check=False)


@contextmanager
def serving(*args: str, cwd: Path) -> Iterator[tuple[str, list[str]]]:
    """A `chukker serve` on a free port: its base URL and what it printed up to serving."""
    p = subprocess.Popen([sys.executable, "-m", "chukker.cli", "serve", "--port", str(free_port()),
                          "--officials-port", str(free_port()), *args],
                         cwd=cwd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = p.stdout.readline()
            if not line:
                raise AssertionError(f"serve ended: {lines} {p.stderr.read() if p.stderr else ''}")
            lines.append(line.rstrip("\n"))
            if "serving on" in line:
                break
        base = lines[-1].split("serving on ")[1].split("/ ")[0]
        for _ in range(200):
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield base, lines
    finally:
        p.terminate()
        p.wait(20)


def test_serve_on_a_port_in_use_is_one_line_exit_2_with_no_secret_and_no_database(
        tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        p = run("serve", "--port", str(port), "--demo", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""  # no organiser token, no demo secrets, no "serving on"
    assert p.stderr.count("\n") == 1 and "in use" in p.stderr and str(port) in p.stderr
    assert list(tmp_path.iterdir()) == []  # nothing seeded, nothing created


def free_port() -> int:
    return ports.free_port(2)


def test_serve_on_a_database_another_server_holds_is_one_line_exit_2(tmp_path: Path) -> None:
    with serving(cwd=tmp_path):
        p = run("serve", "--port", str(free_port()), cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "already served" in p.stderr
    assert p.stdout == ""


def test_serve_with_a_bad_setting_is_exit_2_and_leaves_no_database(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "chukker.cli", "serve", "--demo"], cwd=tmp_path,
                       env={**env(), "CHUKKER_SERVER_PORT": "eighty"}, capture_output=True,
                       text=True, timeout=60, check=False)
    assert p.returncode == 2 and "server.port" in p.stderr and p.stdout == ""
    assert not (tmp_path / "chukker.sqlite3").exists()


def test_plain_serve_on_a_new_database_seeds_no_demo_content(tmp_path: Path) -> None:
    with serving(cwd=tmp_path) as (base, lines):
        assert httpx.get(base + "/api/matches").json() == []
        assert "Fall Arena Classic" not in httpx.get(base + "/tournaments").text
    text = "\n".join(lines)
    assert "demo match" not in text and "demo tournament" not in text
    assert "--demo" in text  # it says how to get demo content
    assert not (tmp_path / "chukker-tournaments").exists() or not any(
        (tmp_path / "chukker-tournaments").iterdir())


def test_serve_demo_seeds_the_demo_after_binding_and_says_so(tmp_path: Path) -> None:
    with serving("--demo", "--open", cwd=tmp_path) as (base, lines):
        assert len(httpx.get(base + "/api/matches").json()) >= 2
    text = "\n".join(lines)
    assert "demo match created" in text and "timekeeper token" in text
    assert base in text  # the printed links carry the port really bound
    # a second --demo start on the same database seeds nothing more
    with serving("--demo", "--open", cwd=tmp_path) as (_, again):
        assert "already holds matches" in "\n".join(again)


def test_serve_help_offers_demo_and_says_it_is_never_the_default(tmp_path: Path) -> None:
    p = run("serve", "--help", cwd=tmp_path)
    assert p.returncode == 0 and "--demo" in p.stdout


def test_serve_sh_passes_demo_and_says_so() -> None:
    text = (ROOT / "scripts" / "serve.sh").read_text()
    assert "serve --demo" in text or "--demo " in text
    assert "echo" in text and "demo content" in text


@pytest.mark.parametrize("text", ["a = " + "[" * 100_000 + "]" * 100_000,
                                  "[" + ".".join(["a"] * 5000) + "]",
                                  "a = " + "{b = " * 3000 + "1" + "}" * 3000],
                         ids=["deep-array", "long-dotted-table", "deep-inline-tables"])
def test_config_with_a_deep_toml_is_a_refusal_naming_the_file(tmp_path: Path,
                                                              text: str) -> None:
    cfg = tmp_path / "deep.toml"
    cfg.write_text(text)
    p = run("config", "--config", str(cfg), cwd=tmp_path)
    assert p.returncode == 2 and str(cfg) in p.stderr and "nested too deeply" in p.stderr
    assert p.stderr.count("\n") == 1


@pytest.mark.parametrize("target", ["/proc/self/mem", "/dev/zero", "{tmp}"])
def test_config_that_is_not_a_settings_file_is_exit_2(tmp_path: Path, target: str) -> None:
    p = run("config", "--config", target.format(tmp=tmp_path), cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.startswith("chukker: bad setting config")
