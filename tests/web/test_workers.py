"""``chukker serve``'s processes on one SQLite file: the officials' process and the
public plane's workers (issue 35).

In process first (two live services on one file, each with its store's local
notification, as two workers have), then ``chukker serve --public-workers 1`` itself
(worker 0: the officials' plane on its own port; worker 1: the public plane): an event
posted to the officials' port reaches a viewer on the public port, concurrent appends
through both ports keep one sequence, horns are kept once, the public worker runs at
nice >= 10, the officials' port serves no anonymous page or stream, and a killed public
worker comes back with nothing acknowledged lost. No timing is asserted: every wait is
bounded and only says what did not happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import http.client
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests import ports

from chukker.config import MqttSettings, Settings
from chukker.live import Clock, LiveService, Role, WorkerRole, hash_token
from chukker.store import StoredEvent, StoreError, TournamentEvent, TournamentWrite, open_store
from chukker.store.notify import LocalNotifier, check_private, parse
from chukker.store.sqlite import SQLiteStore
from chukker.web.app import create_app
from chukker.web.demo import DEMO_HEADER
from chukker.web.workers import make_runtime_folder

ROOT = Path(__file__).resolve().parents[2]
GOAL = {"type": "goal", "team": "A", "player": 1}


# ---------------------------------------------------------------- in one process
def _pair(tmp_path: Path, clock: Any = None) -> tuple[LiveService, LiveService, str]:
    """Two workers' services on one SQLite file: 0 keeps the horns, 1 does not."""
    folder = make_runtime_folder()
    db = tmp_path / "w.sqlite3"
    services = []
    for i in range(2):
        st = open_store(db)
        assert isinstance(st, SQLiteStore)
        st.attach(LocalNotifier(folder, i, 2))
        services.append(LiveService(st, clock, keeps_horns=i == 0, adopts=i == 0))
    return services[0], services[1], folder


async def _stop(*services: LiveService) -> None:
    for svc in services:
        await svc.stop()
        notifier = getattr(svc.store, "notifier", None)
        svc.store.close()
        if notifier is not None:
            notifier.close()


@contextlib.asynccontextmanager
async def _running(tmp_path: Path) -> AsyncIterator[tuple[LiveService, LiveService]]:
    """The two workers' services of :func:`_pair`, started, and stopped at the end."""
    w0, w1, _ = _pair(tmp_path)
    await w0.start()
    await w1.start()
    try:
        yield w0, w1
    finally:
        await _stop(w0, w1)


async def _until(cond: Any, what: str, seconds: float = 20.0) -> None:
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.02)


def test_workers_event_on_one_worker_reaches_a_viewer_of_the_other(tmp_path: Path) -> None:
    async def body() -> None:
        async with _running(tmp_path) as (w0, w1):
            created = await w1.create_match(DEMO_HEADER)
            seen: list[str] = []
            w0.on_publish = lambda mid, msg: seen.append(msg)
            lm0 = await w0.load(created.match_id)
            lm1 = await w1.load(created.match_id)
            await w1.submit(lm1, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
            await w1.submit(lm1, Role.TIMEKEEPER, "c2", dict(GOAL))
            await _until(lambda: lm0.seq == 2, "worker 0 has both events")
            assert [e.command_id for e in lm0.stored] == ["c1", "c2"]
            assert any("event: event" in m and '"goal"' in m for m in seen)

    asyncio.run(body())


def test_workers_a_lost_datagram_costs_latency_never_the_event(tmp_path: Path) -> None:
    async def body() -> None:
        async with _running(tmp_path) as (w0, w1):
            created = await w1.create_match(DEMO_HEADER)
            lm0 = await w0.load(created.match_id)
            lm1 = await w1.load(created.match_id)
            notifier = w1.store.notifier  # type: ignore[attr-defined]
            # every datagram lost, the plain one and the one that carries the event (an
            # append sends the latter since issue 43: replacing ``tell`` alone lost none)
            notifier.tell = lambda match_id, seq: None
            notifier.tell_event = lambda match_id, stored: None
            sent = notifier.sent
            await w1.submit(lm1, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
            await _until(lambda: lm0.seq == 1, "the poll of data_version found the event")
            assert notifier.sent == sent  # found by the poll, not told
            # and a tournament's, found in the same trip to the file
            heard: list[tuple[str | None, int]] = []
            w0.tournament_hooks.append(lambda tid, seq: heard.append((tid, seq)))
            write = TournamentWrite(TournamentEvent(1, "moved", {"match": "p1"}, 5))
            await asyncio.to_thread(w1.store.append_tournament, "cup", write)
            await _until(lambda: ("cup", 1) in heard, "the poll found the tournament's event")
            assert notifier.sent == sent

    asyncio.run(body())


def test_workers_concurrent_appends_keep_one_sequence_with_no_loss(tmp_path: Path) -> None:
    async def body() -> None:
        async with _running(tmp_path) as (w0, w1):
            created = await w0.create_match(DEMO_HEADER)
            lm0 = await w0.load(created.match_id)
            lm1 = await w1.load(created.match_id)
            await w0.submit(lm0, Role.TIMEKEEPER, "start", {"type": "bowl_in"})
            posts = [w.submit(lm, Role.TIMEKEEPER, f"{name}{k}", dict(GOAL))
                     for k in range(15) for w, lm, name in ((w0, lm0, "a"), (w1, lm1, "b"))]
            accepted = await asyncio.gather(*posts)
            assert sorted(a.seq for a in accepted) == list(range(2, 32))
            stored = w0.store.events(created.match_id)
            assert [e.seq for e in stored] == list(range(1, 32))
            assert {e.command_id for e in stored} == (
                {"start"} | {f"a{k}" for k in range(15)} | {f"b{k}" for k in range(15)})
            await _until(lambda: lm0.seq == lm1.seq == 31, "both workers hold all 31")
            assert lm0.match.report()["score"] == lm1.match.report()["score"]

    asyncio.run(body())


class _Clock(Clock):
    """The wall clock moved on by the test (both workers share it)."""

    def __init__(self) -> None:
        super().__init__()
        self.skew = 0

    def now_ms(self) -> int:
        return super().now_ms() + self.skew

    def loop_time(self, wall_ms: int) -> float:
        return super().loop_time(wall_ms - self.skew)


def test_workers_horn_keeper_adopts_a_match_and_alone_keeps_its_horns(tmp_path: Path) -> None:
    """A match started through worker 1 (worker 0 never asked for it): worker 0 loads it
    from the notification and keeps its horns; worker 1 sounds them to its viewers and
    writes no audit row."""
    header = copy.deepcopy(DEMO_HEADER)
    header["options"]["warning_horn"] = True

    async def body() -> None:
        clock = _Clock()
        w0, w1, _ = _pair(tmp_path, clock)
        writes: dict[int, int] = {0: 0, 1: 0}
        for i, w in enumerate((w0, w1)):
            inner = w.store.record_horn

            def counted(mid: str, row: Any, _i: int = i, _inner: Any = inner) -> bool:
                writes[_i] += 1
                return bool(_inner(mid, row))

            w.store.record_horn = counted  # type: ignore[method-assign,assignment]
        await w0.start()
        await w1.start()
        try:
            created = await w1.create_match(header)
            lm1 = await w1.load(created.match_id)
            heard1: list[str] = []
            w1.on_publish = lambda mid, msg: heard1.append(msg)
            await w1.submit(lm1, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
            await _until(lambda: created.match_id in w0._matches, "worker 0 adopted the match")
            clock.skew += 8 * 60 * 1000  # past the first chukker's warning horn and its end
            w0.retime()
            w1.retime()
            await _until(lambda: len(w0.store.horns(created.match_id)) >= 2, "horns kept")
            await _until(lambda: any("event: horn" in m for m in heard1),
                         "worker 1's viewers heard the horn")
            await asyncio.sleep(0.2)
            rows = w0.store.horns(created.match_id)
            assert len({(r.at_ms, r.kind) for r in rows}) == len(rows)
            assert writes[1] == 0 and writes[0] == len(rows)
        finally:
            await _stop(w0, w1)

    asyncio.run(body())


def test_workers_only_the_horn_keeper_runs_the_arena_feeds(tmp_path: Path) -> None:
    s = Settings(mqtt=MqttSettings(url="mqtt://127.0.0.1:1"), organiser_token="o" * 24)
    keeper = create_app(tmp_path / "f.sqlite3", settings=s, worker=WorkerRole(0, 2))
    other = create_app(tmp_path / "f.sqlite3", settings=s, worker=WorkerRole(1, 2))
    assert keeper.state.feed is not None and keeper.state.service.keeps_horns
    assert other.state.feed is None and not other.state.service.keeps_horns
    one = create_app(tmp_path / "g.sqlite3", settings=s)  # one process: as before
    assert one.state.feed is not None and one.state.service.keeps_horns
    assert not one.state.service.adopts


def test_workers_runtime_folder_is_private_and_no_datagram_names_a_path(
        tmp_path: Path) -> None:
    folder = make_runtime_folder()
    st = os.stat(folder)
    assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.getuid()
    n = LocalNotifier(folder, 1, 3)
    try:
        assert stat.S_IMODE(os.stat(n.path).st_mode) == 0o600
        assert os.path.dirname(n.path) == folder and os.path.basename(n.path) == "1.sock"
        # a worker's peers are the workers' numbers in that folder, nothing else
        assert n._peers == [os.path.join(folder, "0.sock"), os.path.join(folder, "2.sock")]
        # a datagram carries a match id and a number; anything else is dropped
        for junk in (b"../../etc/passwd 1", b"/tmp/x 2", b"m1", b"m1 -1", b"\xff\xfe 1",
                     b"a" * 65 + b" 1", b"m1 1 2"):
            assert parse(junk) is None, junk
        tx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        tx.sendto(b"../../etc/passwd 1", n.path)
        tx.sendto(b"m9 4", n.path)
        tx.close()
        assert n.pending() == [("m9", 4)]
    finally:
        n.close()
    shared = tmp_path / "open"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    with pytest.raises(StoreError, match="mode 755"):
        check_private(str(shared))
    with pytest.raises(StoreError, match="there are 2 workers"):
        LocalNotifier(folder, 2, 2)
    os.rmdir(folder)


def test_workers_sqlite_list_cache_sees_the_other_workers_matches(tmp_path: Path) -> None:
    """The newest-matches cache of one process is checked against the other's commits."""
    folder = make_runtime_folder()
    a, b = open_store(tmp_path / "l.sqlite3"), open_store(tmp_path / "l.sqlite3")
    assert isinstance(a, SQLiteStore) and isinstance(b, SQLiteStore)
    a.attach(LocalNotifier(folder, 0, 2))
    b.attach(LocalNotifier(folder, 1, 2))
    try:
        assert a.list_matches(10) == []
        b.create_match("m2", {"format": "chukker-match/1"}, 5, "h", "k")
        assert [m.id for m in a.list_matches(10)] == ["m2"]
    finally:
        for s in (a, b):
            assert s.notifier is not None
            s.notifier.close()
            s.close()


# ------------------------------------------------ chukker serve --public-workers 1
def _free_port() -> int:
    return ports.free_port(2)


#: the scraper's secret (setting ``metrics_token``): ``/metrics`` and ``/readyz``'s details
METRICS_TOKEN = "test-metrics-token-0123456789"
METRICS_AUTH = {"authorization": "Bearer " + METRICS_TOKEN}


class Workers:
    """``chukker serve --public-workers 1`` on a fresh SQLite file (open mode): worker 0
    is the officials' process on ``officials``, worker 1 the public one on ``port``."""

    def __init__(self, tmp: Path, **env_extra: str) -> None:
        self.port = _free_port()
        self.officials = _free_port()
        self.db = tmp / "workers.sqlite3"
        env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
        env["PYTHONPATH"] = str(ROOT / "src")
        env["CHUKKER_METRICS_TOKEN"] = METRICS_TOKEN  # the scraper's (and /readyz's details)
        env.update(env_extra)
        where = [] if "CHUKKER_DATABASE_URL" in env_extra else ["--db", str(self.db)]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chukker.web", *where, "--port",
             str(self.port), "--officials-port", str(self.officials), "--open",
             "--public-workers", "1"],
            cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.out.append(line)

    def conn(self, worker: int, seconds: float = 60.0) -> http.client.HTTPConnection:
        """A keep-alive connection the kernel gave to ``worker``."""
        end = time.monotonic() + seconds
        while True:
            assert self.proc.poll() is None, "".join(self.out)
            c = http.client.HTTPConnection(
                "127.0.0.1", self.officials if worker == 0 else self.port, timeout=30)
            try:
                w = ready_worker(c)
            except (OSError, http.client.HTTPException, ValueError):
                w = None
            if w is not None and w["index"] == worker:
                return c
            c.close()
            assert time.monotonic() < end, f"no connection to worker {worker}: {self.out}"
            time.sleep(0.05 if w is not None else 0.3)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:  # pragma: no cover - a bug: say so
            self.proc.kill()
            raise


def ready_worker(c: http.client.HTTPConnection) -> dict[str, Any] | None:
    """The worker that answered ``/readyz`` on ``c`` once ready, else None."""
    c.request("GET", "/readyz", headers=METRICS_AUTH)
    r = c.getresponse()
    body = json.loads(r.read())
    return body.get("worker") if r.status == 200 else None


def call(c: http.client.HTTPConnection, method: str, path: str, body: Any = None,
         token: str | None = None) -> tuple[int, Any]:
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    c.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    r = c.getresponse()
    return r.status, json.loads(r.read() or b"null")


class Stream:
    """A match's stream on a pinned connection, read in a thread."""

    def __init__(self, c: http.client.HTTPConnection, match_id: str) -> None:
        c.request("GET", f"/api/matches/{match_id}/stream",
                  headers={"accept": "text/event-stream"})
        self.r = c.getresponse()
        assert self.r.status == 200
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with_timeout = self.r
        try:
            while True:
                line = with_timeout.readline()
                if not line:
                    return
                self.lines.append(line.decode())
        except (OSError, ValueError, http.client.HTTPException):
            return

    def has(self, text: str) -> bool:
        return any(text in line for line in list(self.lines))


def _wait(cond: Any, what: str, seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, f"not within {seconds} s: {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    w = Workers(tmp_path_factory.mktemp("workers"))
    try:
        w.conn(0)
        w.conn(1)
        yield w
    finally:
        w.stop()


def test_serve_workers_event_posted_to_one_reaches_a_viewer_on_the_other(
        workers: Workers) -> None:
    c0, c1 = workers.conn(0), workers.conn(1)
    status, created = call(c0, "POST", "/api/matches", DEMO_HEADER)
    assert status == 201, created
    mid, tk = created["match_id"], created["timekeeper_token"]
    viewer = Stream(workers.conn(1), mid)
    _wait(lambda: viewer.has("event: state"), "the viewer on worker 1 has the state")
    status, got = call(c0, "POST", f"/api/matches/{mid}/events",
                       {"command_id": "x1", "event": {"type": "bowl_in"}}, tk)
    assert status == 201, got
    # the event's own message (a state's ``allowed`` names bowl_in too)
    _wait(lambda: viewer.has("event: event"),
          "worker 1's viewer got the event posted to worker 0")
    status, rec = call(c1, "GET", f"/api/matches/{mid}")
    assert status == 200 and rec["seq"] == 1


def _events_counted(workers: Workers, worker: int) -> tuple[float, list[str]]:
    """``chukker_events_total`` and the ``chukker_worker`` series of one scrape of
    ``/metrics`` through ``worker``."""
    c = workers.conn(worker)
    c.request("GET", "/metrics", headers=METRICS_AUTH)
    r = c.getresponse()
    text = r.read().decode()
    assert r.status == 200, text
    lines = text.splitlines()
    total = [x for x in lines if x.startswith("chukker_events_total ")]
    assert total, text[:2000]
    return float(total[0].split()[1]), [x for x in lines if x.startswith("chukker_worker{")]


def test_serve_workers_concurrent_appends_through_both_keep_one_sequence(
        workers: Workers) -> None:
    counted_before, _ = _events_counted(workers, 1)
    c0 = workers.conn(0)
    status, created = call(c0, "POST", "/api/matches", DEMO_HEADER)
    assert status == 201, created
    mid, tk = created["match_id"], created["timekeeper_token"]
    call(c0, "POST", f"/api/matches/{mid}/events",
         {"command_id": "s", "event": {"type": "bowl_in"}}, tk)
    seqs: list[int] = []
    problems: list[Any] = []

    def post_all(worker: int) -> None:
        c = workers.conn(worker)
        for k in range(12):
            st, got = call(c, "POST", f"/api/matches/{mid}/events",
                           {"command_id": f"w{worker}-{k}", "event": dict(GOAL)}, tk)
            (seqs.append(got["seq"]) if st == 201 else problems.append((st, got)))

    threads = [threading.Thread(target=post_all, args=(w,)) for w in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not problems
    assert sorted(seqs) == list(range(2, 26))
    store = open_store(workers.db)
    try:
        events = store.events(mid)
    finally:
        store.close()
    assert [e.seq for e in events] == list(range(1, 26))
    assert len({e.command_id for e in events}) == 25
    # whichever worker a scrape reaches, /metrics counts every worker's events
    for w in (0, 1):
        counted, roles = _events_counted(workers, w)
        assert counted - counted_before == 25
        assert {'index="0"' in x for x in roles} == {True, False}, roles


def test_serve_workers_horns_kept_once_and_heard_on_both(workers: Workers) -> None:
    """A match written to the file behind the workers' backs (no datagram: the poll
    finds it), its warning horn due in a few seconds: the horn keeper adopts it, a
    viewer on worker 1 hears the horn, and the audit has it once."""
    header = copy.deepcopy(DEMO_HEADER)
    header["options"]["warning_horn"] = True
    now = Clock().now_ms()
    start = now + 10_000 - 420_000  # the warning horn, 30 s before 7:30, in 10 s
    store = open_store(workers.db)
    try:
        store.create_match("hornw", header, start, hash_token("x"), hash_token("y"))
        store.append("hornw", StoredEvent(1, "b", {"type": "bowl_in", "at": 0.0}, start,
                                          "timekeeper"), start)
    finally:
        store.close()
    viewer = Stream(workers.conn(1), "hornw")
    _wait(lambda: viewer.has("event: horn"), "worker 1's viewer heard the horn", 60)
    c0 = workers.conn(0)
    _wait(lambda: call(c0, "GET", "/api/matches/hornw/horns")[1] != [], "the horn kept", 30)
    time.sleep(0.5)
    rows = call(workers.conn(1), "GET", "/api/matches/hornw/horns")[1]
    assert [r["kind"] for r in rows] == ["warning"], rows


def test_serve_workers_a_killed_worker_comes_back_and_nothing_acked_is_lost(
        workers: Workers) -> None:
    c1 = workers.conn(1)
    status, created = call(c1, "POST", "/api/matches", DEMO_HEADER)
    assert status == 201, created
    mid, tk = created["match_id"], created["timekeeper_token"]
    acked = []
    for k, ev in enumerate([{"type": "bowl_in"}, dict(GOAL), dict(GOAL)]):
        st, got = call(c1, "POST", f"/api/matches/{mid}/events",
                       {"command_id": f"k{k}", "event": ev}, tk)
        assert st == 201
        acked.append(got["seq"])
    pid = ready_worker(c1)
    assert pid is not None
    os.kill(pid["pid"], signal.SIGKILL)
    c1.close()
    back = workers.conn(1, 90)
    again = ready_worker(back)
    assert again is not None and again["pid"] != pid["pid"] and again["index"] == 1
    assert any("worker 1 (pid" in line and "ended" in line for line in workers.out)
    status, rec = call(back, "GET", f"/api/matches/{mid}")
    assert status == 200 and rec["seq"] == acked[-1] == 3
    st, got = call(back, "POST", f"/api/matches/{mid}/events",
                   {"command_id": "k3", "event": dict(GOAL)}, tk)
    assert st == 201 and got["seq"] == 4


def _get(c: http.client.HTTPConnection, path: str) -> tuple[int, dict[str, str], bytes]:
    c.request("GET", path)
    r = c.getresponse()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()


def test_serve_planes_officials_port_serves_no_anonymous_page_or_stream(
        workers: Workers) -> None:
    c0 = workers.conn(0)
    status, created = call(c0, "POST", "/api/matches", DEMO_HEADER)
    assert status == 201, created
    mid = created["match_id"]
    for path in ("/", f"/m/{mid}", f"/m/{mid}/sheet.json", "/rules/", "/tournaments/",
                 f"/api/matches/{mid}/stream", f"/api/matches/{mid}/feed.json"):
        st, headers, body = _get(c0, path)
        assert st == 307, (path, st, body[:200])
        assert headers["location"] == f"http://127.0.0.1:{workers.port}{path}"
    # the public port serves them; it sends the console to the officials' port
    c1 = workers.conn(1)
    assert _get(c1, f"/m/{mid}")[0] == 200
    st, headers, _ = _get(c1, f"/m/{mid}/console")
    assert st == 307 and headers["location"].startswith(f"http://127.0.0.1:{workers.officials}/")
    assert _get(c0, f"/m/{mid}/console")[0] == 200
    # the console's own stream (a ticket from its token) is served on the officials' port
    st, got = call(c0, "POST", f"/api/matches/{mid}/stream-ticket", None,
                   created["timekeeper_token"])
    assert st == 200, got
    c0.request("GET", f"/api/matches/{mid}/stream?ticket={got['ticket']}")
    r = c0.getresponse()
    assert r.status == 200 and r.readline().startswith(b"retry:")
    c0.close()


def test_serve_planes_public_processes_run_at_nice_10_or_more(workers: Workers) -> None:
    officials, public = (ready_worker(workers.conn(i)) for i in (0, 1))
    assert officials is not None and public is not None
    assert os.getpriority(os.PRIO_PROCESS, public["pid"]) >= 10
    assert os.getpriority(os.PRIO_PROCESS, officials["pid"]) < 10
    assert any("officials' plane" in line for line in workers.out)


def test_serve_planes_guard_the_new_options() -> None:
    """The guard's questions for ``--officials-port`` and ``--public-workers``: only the
    operator gives them (command line or settings, never a client); their size is
    bounded (a port, at most 64 workers); they name no path; the officials' port is
    its own process, so the crowd on the public port cannot delay a key press there
    more than the CPU they share (at nice +10)."""
    from chukker.config import ConfigError, load

    for key, bad in (("server.public_workers", "65"), ("server.officials_port", "70000"),
                     ("server.officials_url", "file:///etc/passwd")):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            load(file=False, env={"CHUKKER_" + key.replace(".", "_").upper(): bad})
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    port = _free_port()
    p = subprocess.run([sys.executable, "-m", "chukker.web", "--port", str(port),
                        "--officials-port", str(port), "--db", os.devnull + "-no"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "two planes need two ports" in p.stderr


@pytest.mark.postgres
def test_serve_workers_on_postgresql_hear_each_other_through_listen_notify(
        pg_schema: str, pg_url: str, tmp_path: Path) -> None:
    w = Workers(tmp_path, CHUKKER_DATABASE_URL=pg_url, CHUKKER_DATABASE_SCHEMA=pg_schema,
                CHUKKER_ORGANISER_TOKEN="o" * 24)
    try:
        c0 = w.conn(0)
        status, created = call(c0, "POST", "/api/matches", DEMO_HEADER)
        assert status == 201, created
        mid, tk = created["match_id"], created["timekeeper_token"]
        viewer = Stream(w.conn(1), mid)
        _wait(lambda: viewer.has("event: state"), "the viewer on worker 1 has the state")
        status, got = call(c0, "POST", f"/api/matches/{mid}/events",
                           {"command_id": "p1", "event": {"type": "bowl_in"}}, tk)
        assert status == 201, got
        _wait(lambda: viewer.has('"bowl_in"'), "worker 1's viewer got worker 0's event")
        pids = [info["pid"] for info in (ready_worker(w.conn(i)) or {} for i in (0, 1))]
    finally:
        w.stop()
    # SIGTERM to the supervisor stopped every worker
    for pid in pids:
        _wait(lambda pid=pid: not _alive(pid), f"worker pid {pid} stopped", 30)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie (ended, not reaped yet by its init) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"
    return True


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from ``/proc``)."""
    found = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(d.name))
    return found


def test_the_fork_servers_preload_imports_no_metrics_starts_no_thread_opens_no_file() -> None:
    """What the fork server imports once is inherited by every worker it forks: it must
    not choose prometheus_client's mode before the workers' folder is set, start a
    thread (a fork keeps only the forking one) or keep a file open."""
    from chukker.web.workers import PRELOAD

    code = ("import importlib, os, sys\n"
            "fds = set(os.listdir('/proc/self/fd'))\n"
            f"for m in {list(PRELOAD)!r}: importlib.import_module(m)\n"
            "print(sorted(m for m in ('prometheus_client', 'numpy') if m in sys.modules),"
            " len(os.listdir('/proc/self/task')),"
            " sorted(set(os.listdir('/proc/self/fd')) - fds))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.split()
    assert out == ["[]", "1", "[]"], out


def test_the_workers_are_spawned_again_when_the_environment_says_spawn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``CHUKKER_WORKER_START=spawn``: the way back (and the start-up benchmark's
    baseline); anything else leaves the fork server on Linux."""
    from chukker.web.workers import START_ENV, start_method

    monkeypatch.setenv(START_ENV, "spawn")
    assert start_method() == "spawn"
    monkeypatch.setenv(START_ENV, "fork")  # not a choice: the default stays
    assert start_method() == ("forkserver" if sys.platform.startswith("linux") else "spawn")


def test_a_worker_stops_once_its_supervisor_is_gone_even_if_its_parent_lives_on() -> None:
    """The worker's watch asks for the supervisor itself, not only its parent: a fork
    server kept alive by something else never keeps a worker without a supervisor."""
    supervisor = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    code = ("import os, sys; sys.path.insert(0, sys.argv[2]); from chukker.web import workers;"
            "workers.ORPHAN_CHECK_S = 0.05;"
            "workers._watch_supervisor(os.getppid(), int(sys.argv[1]))")
    worker = subprocess.Popen([sys.executable, "-c", code, str(supervisor.pid),
                               str(ROOT / "src")])
    try:
        time.sleep(0.5)
        assert worker.poll() is None  # both there: it keeps watching
        supervisor.kill()
        supervisor.wait()
        assert worker.wait(30) == -signal.SIGTERM
    finally:
        for p in (worker, supervisor):
            if p.poll() is None:
                p.kill()
                p.wait()


def test_without_proc_a_process_is_asked_of_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where there is no ``/proc`` (macOS), a worker's watch never takes a supervisor that
    runs for gone: the kernel is asked instead."""
    from chukker.web import workers

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    real = os.path.isdir
    monkeypatch.setattr(workers.os.path, "isdir",
                        lambda p: False if p == "/proc/self" else real(p))
    assert workers._running(os.getpid())
    assert not workers._running(gone.pid)


def test_a_worker_reported_ended_but_still_running_is_waited_for_then_killed() -> None:
    """The supervisor starts a worker again only once its last process is gone (its fork
    server may report it ended while it still stops), and kills it past STOP_WAIT_S."""
    from chukker.web import workers

    sup = workers.Supervisor(lambda i: None, 1, listening={})
    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        sup.leaving[0] = (slow.pid, 100.0)
        assert sup._still_leaving(0, 101.0)  # still running: wait
        assert slow.poll() is None
        assert sup._still_leaving(0, 100.0 + workers.STOP_WAIT_S + 1)  # too long: killed
        assert slow.wait(10) == -signal.SIGKILL
        assert not sup._still_leaving(0, 200.0) and sup.leaving[0] is None
        assert not sup._still_leaving(0, 200.0)  # nothing left to wait for
    finally:
        if slow.poll() is None:
            slow.kill()
            slow.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server: Linux")
def test_a_fork_server_killed_9_never_leaves_two_horn_keepers_side_by_side(
        tmp_path: Path) -> None:
    """``kill -9`` of the fork server: its workers stop on their parent-death signal, and
    the supervisor, told at once that they ended, starts them again once the old horn
    keeper is gone (one at a time); both planes answer again."""
    w = Workers(tmp_path)
    try:
        old = ready_worker(w.conn(0))
        assert old is not None
        (server,) = [c for c in _children(w.proc.pid)
                     if b"forkserver" in Path(f"/proc/{c}/cmdline").read_bytes()]
        # every worker of the old fork server: for a moment after the kill they are still
        # its children (a SIGKILL is delivered, not yet done), and not new ones
        before = {c for h in _children(w.proc.pid) for c in _children(h)}
        assert old["pid"] in before
        os.kill(server, signal.SIGKILL)
        gone_at = None
        end = time.monotonic() + 60
        while True:
            now = time.monotonic()
            assert now < end, "".join(w.out)
            if gone_at is None and not _alive(old["pid"]):
                gone_at = now
            started = [c for h in _children(w.proc.pid) for c in _children(h)
                       if c not in before and _alive(c)]
            if started:
                assert gone_at is not None, "a new worker beside the old horn keeper"
                break
            time.sleep(0.01)
        new = ready_worker(w.conn(0))
        assert new is not None and new["pid"] != old["pid"] and new["horn_keeper"]
        assert ready_worker(w.conn(1)) is not None
    finally:
        w.stop()


def test_serve_workers_end_with_their_supervisor_killed_9(tmp_path: Path) -> None:
    """``kill -9`` of ``chukker serve``: Linux tells its workers at once (prctl's parent
    death signal), so a server started again on the same ports never shares a port
    with the old workers (a connection reset for the client that lands on them)."""
    w = Workers(tmp_path)
    try:
        pids = [ready_worker(w.conn(i)) for i in (0, 1)]
        assert all(p is not None for p in pids)
        # on Linux the workers' parent is the supervisor's fork server: it ends too
        helpers = _children(w.proc.pid)
        assert {p["pid"] for p in pids if p is not None} <= helpers | {
            c for h in helpers for c in _children(h)}
        os.kill(w.proc.pid, signal.SIGKILL)
        w.proc.wait(10)
        for p in pids:
            assert p is not None
            _wait(lambda pid=p["pid"]: not _alive(pid), "a worker outlived its supervisor", 30)
        for h in helpers:
            _wait(lambda pid=h: not _alive(pid), "the fork server outlived its supervisor", 30)
        with socket.socket() as s:  # nobody listens on the old ports
            assert s.connect_ex(("127.0.0.1", w.port)) != 0
    finally:
        w.stop()
