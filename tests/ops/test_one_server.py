"""One server per port and per SQLite file (issue 40), on real ``chukker serve`` processes.

A second ``chukker serve`` on a port in use, or on a SQLite file another server holds,
refuses in one line naming the other server and exits 2 (within 10 s: the refusal
comes before the web's imports); the public plane's workers share their port with
their supervisor only (a stranger's ``SO_REUSEPORT`` bind is refused), a killed worker
started again serves the same port; several servers on one PostgreSQL still start,
each on its own ports. The notes that name a server are read with care: junk, a
folder that is not private, a note whose server is gone are all ignored.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests import ports

from chukker.web import holders

ROOT = Path(__file__).resolve().parents[2]
METRICS_TOKEN = "test-metrics-token-0123456789"
#: the refusal's bound (issue 40); a start-up that refuses takes 0.3-0.4 s here, idle (0.75 s
#: while `serve` imported the edge's web app to register `chukker edge`)
REFUSE_WITHIN_S = 10


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    e["PYTHONPATH"] = str(ROOT / "src")
    e["CHUKKER_METRICS_TOKEN"] = METRICS_TOKEN
    e.update(extra)
    return e


def free_port() -> int:
    return ports.free_port(2)


class Server:
    """``chukker serve`` on two free ports (the public plane with ``workers`` processes)."""

    def __init__(self, cwd: Path, *args: str, workers: int = 2, **env_extra: str) -> None:
        self.port, self.officials = free_port(), free_port()
        self.db = args[args.index("--db") + 1] if "--db" in args else ""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chukker.cli", "serve", "--port", str(self.port),
             "--officials-port", str(self.officials), "--public-workers", str(workers),
             "--open", *args], cwd=cwd, env=env(**env_extra), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.out.append(line)

    def worker(self, port: int | None = None) -> dict[str, int] | None:
        """The worker a new connection to ``port`` (the public one) reached, once ready."""
        c = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=10)
        try:
            c.request("GET", "/readyz", headers={"authorization": "Bearer " + METRICS_TOKEN})
            r = c.getresponse()
            body = json.loads(r.read())
        except (OSError, http.client.HTTPException, ValueError):
            return None
        finally:
            c.close()
        return body.get("worker") if r.status == 200 else None

    def workers_seen(self, wanted: set[int], seconds: float = 60) -> dict[int, int]:
        """index -> pid of the public workers new connections reach, until ``wanted``
        have answered."""
        seen: dict[int, int] = {}
        end = time.monotonic() + seconds
        while not wanted <= set(seen):
            assert self.proc.poll() is None, "".join(self.out)
            assert time.monotonic() < end, f"only {seen} answered: {''.join(self.out)}"
            w = self.worker()
            if w is None:
                time.sleep(0.1)
            else:
                seen[w["index"]] = w["pid"]
        return seen

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:  # pragma: no cover - a bug: say so
            self.proc.kill()
            raise


def refused(cwd: Path, *args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    """A second ``chukker serve`` that must end by itself within the bound."""
    return subprocess.run([sys.executable, "-m", "chukker.cli", "serve", *args], cwd=cwd,
                          env=env(**env_extra), capture_output=True, text=True,
                          timeout=REFUSE_WITHIN_S, check=False)


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    cwd = tmp_path_factory.mktemp("first")
    s = Server(cwd, "--db", str(cwd / "first.sqlite3"))
    try:
        s.workers_seen({1, 2})
        yield s
    finally:
        s.stop()


def test_second_serve_on_the_same_ports_with_another_file_refuses_naming_the_first(
        first: Server, tmp_path: Path) -> None:
    for port, officials in ((first.port, free_port()), (free_port(), first.officials)):
        p = refused(tmp_path, "--db", str(tmp_path / "other.sqlite3"), "--port", str(port),
                    "--officials-port", str(officials))
        assert p.returncode == 2, p.stderr
        assert p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
        taken = port if port == first.port else officials
        db = first.db
        assert (f"cannot listen on 127.0.0.1:{taken}: the port is in use by another "
                f"`chukker serve` (pid {first.proc.pid}, ports {first.port} and "
                f"{first.officials}, database {db})") in p.stderr
        assert not (tmp_path / "other.sqlite3").exists()


def test_second_serve_on_the_same_sqlite_file_refuses_naming_the_first(
        first: Server, tmp_path: Path) -> None:
    db = first.db
    p = refused(tmp_path, "--db", db, "--port", str(free_port()), "--officials-port",
                str(free_port()))
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert f"{db} is already served by another `chukker serve` (pid {first.proc.pid}, " \
           f"ports {first.port} and {first.officials})" in p.stderr
    assert "PostgreSQL" in p.stderr


def test_public_workers_share_the_port_with_their_supervisor_only(first: Server) -> None:
    first.workers_seen({1, 2})  # both public workers answer on the one port
    for port in (first.port, first.officials):  # a stranger cannot join with SO_REUSEPORT
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            with pytest.raises(OSError) as e:
                s.bind(("127.0.0.1", port))
            assert e.value.errno == 98  # EADDRINUSE


def test_a_killed_public_worker_started_again_serves_the_same_port(first: Server) -> None:
    before = first.workers_seen({1, 2})
    os.kill(before[1], signal.SIGKILL)
    end = time.monotonic() + 60
    while True:
        again = first.workers_seen({1, 2})
        if again[1] != before[1]:
            break
        assert time.monotonic() < end, f"worker 1 was not started again: {first.out}"
        time.sleep(0.2)
    assert again[2] == before[2]
    assert any("worker 1 (pid" in line and "ended" in line for line in first.out)


def test_a_port_held_by_another_program_is_refused_naming_it(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", "import socket, sys, time\n"
         "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
         "print(s.getsockname()[1], flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        port = int(holder.stdout.readline())
        p = refused(tmp_path, "--port", str(port), "--public-workers", "0")
    finally:
        holder.kill()
        holder.wait()
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert f"in use by another program (pid {holder.pid}, python" in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_notes_that_are_junk_gone_or_not_private_name_nobody(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    sleep = [sys.executable, "-c", "import time; time.sleep(60)"]
    # a pid used again by a program that is no chukker, and one that is
    stranger, server = (subprocess.Popen(argv, env=env()) for argv in (sleep, [*sleep, "chukker"]))
    try:
        for proc in (stranger, server):  # until their command lines are there (exec done)
            end = time.monotonic() + 30
            while b"-c" not in Path(f"/proc/{proc.pid}/cmdline").read_bytes():
                assert time.monotonic() < end and proc.poll() is None
                time.sleep(0.01)
        kept, used_again, gone = (
            holders.Holder("chukker serve", pid, "127.0.0.1", (8000, 8001), "/x.sqlite3")
            for pid in (server.pid, stranger.pid, 2**22 + 7))
        paths = [holders.leave_note(h) for h in (kept, used_again, gone)]
        assert all(p is not None for p in paths)
        folder = tmp_path / "chukker-servers"
        assert all(p is not None and p.parent == folder for p in paths)
        assert (folder.stat().st_mode & 0o777) == 0o700
        assert all(p is not None and (p.stat().st_mode & 0o777) == 0o600 for p in paths)
        (folder / "serve-3.json").write_text("{" * 10_000)
        (folder / "serve-4.json").write_text(json.dumps({"pid": -1, "ports": [1]}))
        assert holders.notes() == [kept]
        # the notes of a server gone, of a pid used again, and junk are removed
        assert sorted(x.name for x in folder.iterdir()) == [f"serve-{server.pid}.json"]
    finally:
        for proc in (stranger, server):
            proc.kill()
            proc.wait()
    path = paths[0]
    assert path is not None
    assert holders.Holder.from_json('{"command": "x", "pid": 5, "host": "h", "ports": '
                                    '[70000], "database": ""}') is None
    os.chmod(path.parent, 0o755)  # a folder others may write into is not read
    assert holders.notes_folder() is None and holders.notes() == []
    assert holders.leave_note(kept) is None


def test_a_shown_database_never_carries_its_password() -> None:
    shown = holders.shown_database("postgresql://chukker:s3cret@db:5433/live?password=x")
    assert shown == "PostgreSQL db:5433/live" and "s3cret" not in shown


@pytest.mark.postgres
@pytest.mark.xdist_group("postgres-live")
def test_two_servers_on_one_postgresql_each_on_its_own_ports_both_start(
        pg_schema: str, pg_url: str, tmp_path: Path) -> None:
    extra = {"CHUKKER_DATABASE_URL": pg_url, "CHUKKER_DATABASE_SCHEMA": pg_schema,
             "CHUKKER_ORGANISER_TOKEN": "o" * 24}
    from chukker.store import open_store

    open_store(pg_url, pg_schema=pg_schema).close()  # the schema, made once beforehand
    a = Server(tmp_path, workers=1, **extra)
    b: Server | None = None
    try:
        b = Server(tmp_path, workers=1, **extra)
        a.workers_seen({1})
        b.workers_seen({1})
        for s in (a, b):
            assert s.worker(s.officials) is not None  # the officials' planes too
        p = refused(tmp_path, "--port", str(a.port), "--officials-port", str(free_port()),
                    **extra)
        assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
        assert f"another `chukker serve` (pid {a.proc.pid}" in p.stderr
        assert "database PostgreSQL " in p.stderr and "@" not in p.stderr
    finally:
        for server in (a, b):
            if server is not None:
                with contextlib.suppress(Exception):
                    server.stop()
