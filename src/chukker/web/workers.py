"""``chukker serve``: the officials' process and the public plane's workers, and their
supervisor (issue 35: two planes; docs/operations.md).

The supervisor (the process ``chukker serve`` started as) does what one server
does before serving: the settings, both ports, the database, the organiser
token, demo content. Then it makes a private runtime folder (mode 0700) and
starts 1 + N processes (``multiprocessing``: on Linux forked from a fork server that
imported the libraries once, :data:`PRELOAD`; elsewhere spawned). Each opens the store and
serves, on the listening socket of its port that the supervisor bound once (without
``SO_REUSEPORT``: nobody else can share the port, issue 40) and handed to it, with a
:class:`~chukker.live.LiveService` of its own:

* process 0 is the **officials' plane** (:attr:`~chukker.web.planes.Plane.OFFICIALS`),
  alone on the officials' port: the API, the console and the officials' pages. It is
  the *horn keeper*: it writes the horns' audit rows, runs the arena feeds (MQTT,
  relays) and loads every match it hears of;
* processes 1..N are the **public plane** (:attr:`~chukker.web.planes.Plane.PUBLIC`) on
  the public port (they accept from the one socket, whichever is free first; a
  connection that comes while one restarts waits in the socket's queue), at CPU priority
  ``nice`` +:data:`PUBLIC_NICE`: every page, stream, export and feed, and the API's
  writes too (through the same store). They sound the horns to their own viewers and
  never write the audit;
* they hear each other's appends through the store: PostgreSQL's LISTEN/NOTIFY,
  or on SQLite a Unix datagram socket per process in the runtime folder plus a
  ``PRAGMA data_version`` poll (:mod:`chukker.store.notify`);
* a process that dies is started again (same number, so the horn keeper comes
  back as the horn keeper), after a pause that grows while it keeps dying young;
* SIGINT or SIGTERM to the supervisor stops every process (SIGTERM, then SIGKILL
  after :data:`STOP_WAIT_S`); a process whose supervisor is gone stops itself.

Nothing a client sends reaches this module: the folder is made here, the socket
names are the processes' numbers.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Any

from chukker import ticks
from chukker.ops import metrics
from chukker.web.holders import listen

#: seconds the supervisor waits for its workers to stop before killing them
STOP_WAIT_S = 10.0
#: a worker that lived less than this died young: the next start waits longer
YOUNG_S = 10.0
#: the pause before starting a worker again: first, then doubling up to the last
RESTART_PAUSE_S = (0.2, 10.0)
#: the supervisor's longest wait between two looks at its workers: while one is to be
#: started again (or no signal can wake it), then with all running (a worker's end and a
#: stop wake it at once; the long wait only bounds what a missed wake-up could cost)
WAIT_S = (0.2, 5.0)
#: seconds between a worker's checks that its supervisor is still there
ORPHAN_CHECK_S = 1.0
#: the most workers (a typo like --workers 200 should not fork-bomb the laptop)
MAX_WORKERS = 64
#: how much lower the public plane's CPU priority is (``os.nice``): the officials' process
#: gets the cores first when the crowd and the match both want them
PUBLIC_NICE = 10


#: what the fork server imports once, before the supervisor's work, so that a worker
#: (and a worker started again) is forked with them instead of importing them (0.6 of
#: its 0.9 s). Nothing here may import ``prometheus_client`` (it picks its multiprocess
#: mode from the environment when imported: :func:`prepare_runtime` sets it for the
#: workers), start a thread (numpy's BLAS does: it stays out, and what imports it) or
#: open a file: a forked process inherits them (``tests/web/test_workers.py``).
PRELOAD = (
    "anyio", "babel", "fastapi", "fastapi.openapi.models", "fastapi.responses",
    "fastapi.routing", "jinja2", "msgspec", "PIL.Image", "pydantic", "starlette.applications",
    "uvicorn", "uvicorn.config", "uvicorn.server", "uvicorn.protocols.http.httptools_impl",
    "uvloop", "chukker.engine", "chukker.record", "chukker.rules", "chukker.store",
    "chukker.tournament", "chukker.rulebook", "chukker.education",
)


#: the environment variable that makes ``chukker serve`` spawn its workers, each importing
#: everything itself, as before the fork server (a way back, and the benchmark's baseline:
#: ``benchmarks/startup.py``)
START_ENV = "CHUKKER_WORKER_START"


def start_method() -> str:
    """``forkserver`` on Linux (a worker's parent is then the fork server, which ends with
    the supervisor, and the kernel's parent-death signal reaches the worker through it),
    ``spawn`` elsewhere or when :data:`START_ENV` says ``spawn``.

    >>> start_method() in ("forkserver", "spawn")
    True
    """
    if os.environ.get(START_ENV) == "spawn" or not sys.platform.startswith("linux"):
        return "spawn"
    return "forkserver"


def prepare_runtime() -> str:
    """The workers' private runtime folder, their metrics' folder in the environment,
    and (Linux) the fork server started with :data:`PRELOAD`: called by ``chukker serve``
    as soon as it knows it will supervise, so the fork server imports while the
    supervisor opens the database. The caller removes the folder
    (:func:`release_runtime`)."""
    runtime = make_runtime_folder()
    # the workers keep their metrics side by side, so any of them answers /metrics for
    # all (prometheus_client's multiprocess mode, read when a worker starts)
    folder = os.path.join(runtime, "metrics")
    os.mkdir(folder, 0o700)
    os.environ[metrics.MULTIPROC_ENV] = folder
    if start_method() == "forkserver":
        from multiprocessing import forkserver

        multiprocessing.get_context("forkserver").set_forkserver_preload(list(PRELOAD))
        forkserver.ensure_running()
    return runtime


def release_runtime(runtime: str) -> None:
    """The folder :func:`prepare_runtime` made, removed, and its variable unset (the fork
    server ends with this process)."""
    os.environ.pop(metrics.MULTIPROC_ENV, None)
    shutil.rmtree(runtime, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """What a worker is told by its supervisor (pickled to the worker, forked or spawned)."""

    settings: Any
    index: int
    workers: int
    #: the supervisor's private runtime folder (the workers' datagram sockets)
    runtime: str
    host: str
    port: int
    organiser: str | None
    open_mode: bool
    #: ``officials``, ``public`` or ``both`` (:class:`~chukker.web.planes.Plane`'s label)
    plane: str = "both"
    #: the other plane's port (the redirects of the guard, :class:`~chukker.web.guard.Guard`)
    public_port: int = 0
    officials_port: int = 0


def make_runtime_folder() -> str:
    """A new folder only this user can enter (mode 0700), for the workers' sockets:
    under ``$XDG_RUNTIME_DIR`` when it is set, else the system's temporary folder.
    Short, since a Unix socket's path is at most 107 bytes."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if not base or not os.path.isdir(base) or len(base) > 60:
        base = None
    folder = tempfile.mkdtemp(prefix="chukker-", dir=base)
    os.chmod(folder, 0o700)
    return folder


def uvicorn_config(app: Any, host: str, port: int) -> Any:
    """uvicorn's settings of ``chukker serve`` (one process, or each worker)."""
    import uvicorn

    from chukker.web.limits import uvicorn_options

    # the client's address behind proxies is chukker's (setting trusted_proxies), not
    # uvicorn's; requests are logged by chukker's access log, without secrets
    return uvicorn.Config(app, host=host, port=port, log_level="warning",
                          timeout_graceful_shutdown=2, proxy_headers=False,
                          access_log=False, log_config=None, **uvicorn_options())


def stopping_server(config: Any, service: Any) -> Any:
    """uvicorn's server, ending the live streams first when asked to stop."""
    import asyncio

    import uvicorn

    class Server(uvicorn.Server):
        _woken: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        _exit = False

        @property
        def should_exit(self) -> bool:
            return self._exit

        @should_exit.setter
        def should_exit(self, value: bool) -> None:
            """Set by a signal, a test or a supervisor's stop: the tick waking at once."""
            self._exit = value
            woken = self._woken
            if value and woken is not None:
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    woken[0].call_soon_threadsafe(woken[1].set)

        async def main_loop(self) -> None:
            """uvicorn's tick (the date header, the exit check) once a second on the
            process's grid (:mod:`chukker.ticks`) instead of every 0.1 s; a stop wakes
            it at once."""
            loop = asyncio.get_running_loop()
            woken = asyncio.Event()
            self._woken = (loop, woken)
            counter = 0
            should_exit = await self.on_tick(counter)
            while not should_exit:
                counter = (counter + 10) % 864000  # each tick is a second: the date's
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout_at(ticks.deadline(1.0, loop.time())):
                        await woken.wait()
                should_exit = await self.on_tick(counter)

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            service.stopped = True  # /readyz answers 503 from now on
            with contextlib.suppress(RuntimeError):
                loop = asyncio.get_running_loop()
                loop.call_soon_threadsafe(service.close_streams)
            super().handle_exit(sig, frame)

    return Server(config)


def _watch_supervisor(parent: int, supervisor: int) -> None:
    """Stop this worker (as SIGTERM would) once ``parent`` (its supervisor, or the fork
    server that ends with it) or the ``supervisor`` itself is gone: a fork server that
    outlived the supervisor (a Python whose ``multiprocessing`` kept its pipe elsewhere)
    never leaves a worker behind."""
    while True:
        time.sleep(ORPHAN_CHECK_S)
        if os.getppid() != parent or not _running(supervisor):
            os.kill(os.getpid(), signal.SIGTERM)
            return


def _stat(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command's name (state, parent, ...);
    None where they cannot be read (the process is gone, or there is no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _parent_of(pid: int) -> int | None:
    """``pid``'s parent, from ``/proc`` (None where it cannot be read)."""
    fields = _stat(pid)
    return int(fields[1]) if fields is not None and len(fields) > 1 else None


def _let_go_of_fork_server() -> None:
    """Close the fork server's "alive" pipe that ``multiprocessing`` hands to each process
    it forks (so that the server outlives them). Held here, it would keep the fork server
    running after the supervisor's end, and this worker (whose parent the server is)
    would never get its parent-death signal."""
    from multiprocessing import forkserver

    # multiprocessing's own fields, not typed and not public: read where they are
    server = getattr(forkserver, "_forkserver", None)  # the module's one ForkServer
    fd = getattr(server, "_forkserver_alive_fd", None)  # set in a forked process only
    if fd is not None and server is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None


def watched_parent(supervisor: int) -> int | None:
    """The process whose end ends this worker: the supervisor that spawned it, or the
    supervisor's fork server that forked it; None if it is neither (the supervisor is
    already gone)."""
    ppid = os.getppid()
    return ppid if ppid == supervisor or _parent_of(ppid) == supervisor else None


#: prctl(2)'s option: the signal a process gets when its parent dies
PR_SET_PDEATHSIG = 1


def stop_with_supervisor(supervisor: int) -> int:
    """Ask Linux to send this process SIGTERM the moment its parent dies (``kill -9``
    included): the supervisor, or its fork server, which ends when the supervisor does.
    So a supervisor started again at once never shares its port with the old one's
    workers; elsewhere :func:`_watch_supervisor` notices within a second. The parent
    to watch."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    _let_go_of_fork_server()
    parent = watched_parent(supervisor)
    if parent is None:  # gone before the request was made
        os.kill(os.getpid(), signal.SIGTERM)
        return os.getppid()
    return parent


def run_worker(spec: WorkerSpec, supervisor: int, sock: socket.socket) -> None:
    """One worker: its store (told of the others' appends), its app, and ``sock``: its
    port's listening socket, bound by the supervisor (``multiprocessing`` passes it to
    the worker as a file descriptor, at every start)."""
    with contextlib.suppress(OSError):  # a terminal's Ctrl-C goes to the supervisor only
        os.setpgid(0, 0)
    parent = stop_with_supervisor(supervisor)
    from chukker.live import WorkerRole
    from chukker.ops.logging import configure
    from chukker.store import open_store
    from chukker.store.sqlite import SQLiteStore
    from chukker.web.app import create_app
    from chukker.web.ops.observe import process_settings
    from chukker.web.planes import Addresses, Plane
    from chukker.web.state import state_of

    plane = {p.label: p for p in (Plane.OFFICIALS, Plane.PUBLIC, Plane.BOTH)}[spec.plane]
    if plane == Plane.PUBLIC:
        os.nice(PUBLIC_NICE)  # the crowd waits for the match, never the other way round
    s = spec.settings
    configure(s.log.format, s.log.level)
    store = open_store(s.database_target(), pg_schema=s.database_schema)
    if isinstance(store, SQLiteStore):  # PostgreSQL tells the others itself (NOTIFY)
        from chukker.store.notify import LocalNotifier

        store.attach(LocalNotifier(spec.runtime, spec.index, spec.workers))
    addresses = Addresses(spec.public_port or spec.port, spec.officials_port or spec.port,
                          s.server.public_url, s.server.officials_url)
    app = create_app(store, organiser=spec.organiser, open_mode=spec.open_mode, settings=s,
                     worker=WorkerRole(spec.index, spec.workers), plane=plane,
                     addresses=addresses, warm=True, configured=process_settings(s))
    config = uvicorn_config(app, spec.host, spec.port)
    gate = state_of(app).address_gate
    if gate is not None:  # the officials' port (web/gate.py): a short queue, and the
        from chukker.web.gate import OFFICIALS_BACKLOG  # shut-out addresses' packets

        config.backlog = OFFICIALS_BACKLOG  # dropped by the kernel
        gate.guard(sock)
    threading.Thread(target=_watch_supervisor, args=(parent, supervisor), daemon=True,
                     name="chukker-orphan-check").start()
    try:
        stopping_server(config, state_of(app).service).run(sockets=[sock])
    finally:
        sock.close()
        if isinstance(store, SQLiteStore) and store.notifier is not None:
            store.notifier.close()


def _say(msg: str) -> None:
    print(f"chukker: {msg}", flush=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended and not yet reaped, does not; without
    ``/proc``, as on macOS, the kernel is asked and a zombie counts as running).

    >>> _running(os.getpid())
    True
    """
    if not os.path.isdir("/proc/self"):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # there, but not ours to signal
            return True
        return True
    fields = _stat(pid)  # None: gone (or gone while read)
    return fields is not None and len(fields) > 0 and fields[0] not in (b"Z", b"X")


class Supervisor:
    """Starts ``workers`` worker processes, starts again one that dies, stops them all."""

    def __init__(self, spec_of: Any, workers: int, *, planes: bool = False,
                 listening: Mapping[int, socket.socket]) -> None:
        self.spec_of = spec_of
        #: port -> its listening socket, held here for every start of a worker
        self.listening = listening
        self.planes = planes
        self.workers = workers
        self.ctx = (multiprocessing.get_context("forkserver") if start_method() == "forkserver"
                    else multiprocessing.get_context("spawn"))
        self.procs: list[Any] = [None] * workers
        self.started = [0.0] * workers
        self.pause = [RESTART_PAUSE_S[0]] * workers
        self.due = [0.0] * workers
        #: a worker seen ended whose process may still run (its fork server died first,
        #: and it is stopping on its parent-death signal), and when it was seen
        self.leaving: list[tuple[int, float] | None] = [None] * workers
        self.restarts = 0
        self.stopping = False

    def _start(self, i: int) -> None:
        spec = self.spec_of(i)
        p = self.ctx.Process(target=run_worker,
                             args=(spec, os.getpid(), self.listening[spec.port]),
                             name=f"chukker-worker-{i}", daemon=False)
        p.start()
        self.procs[i] = p
        self.started[i] = time.monotonic()
        role = (" (officials' plane, horn keeper)" if i == 0 and self.planes
                else " (public plane)" if self.planes else " (horn keeper)" if i == 0 else "")
        _say(f"worker {i}{role} started, pid {p.pid}")

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def run(self) -> int:
        """Supervise until SIGINT or SIGTERM; the exit status (0)."""
        old = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        # a signal wakes the wait below at once (its handler alone would run only when the
        # wait's timeout ends): so the wait need not wake twice a second to see a stop
        woken, waker = socket.socketpair()
        waker.setblocking(False)
        woken.setblocking(False)
        try:
            old_fd: int | None = signal.set_wakeup_fd(waker.fileno(), warn_on_full_buffer=False)
        except ValueError:  # not the main thread: no wake-up, the short timeout
            old_fd = None
        try:
            for i in range(self.workers):
                self._start(i)
            while not self.stopping:
                alive = [p.sentinel for p in self.procs if p is not None and p.is_alive()]
                pending = old_fd is None or any(p is None for p in self.procs)
                multiprocessing.connection.wait(
                    [*alive, woken], timeout=WAIT_S[0] if pending else WAIT_S[1])
                with contextlib.suppress(OSError):
                    woken.recv(4096)
                now = time.monotonic()
                for i, p in enumerate(self.procs):
                    if self.stopping:
                        break
                    if p is not None and not p.is_alive():
                        p.join()
                        metrics.mark_dead(p.pid)
                        lived = now - self.started[i]
                        self.pause[i] = (min(self.pause[i] * 2, RESTART_PAUSE_S[1])
                                         if lived < YOUNG_S else RESTART_PAUSE_S[0])
                        self.due[i] = now + self.pause[i]
                        self.procs[i] = None
                        self.leaving[i] = (p.pid, now)
                        _say(f"worker {i} (pid {p.pid}) ended with status {p.exitcode}; "
                             f"starting it again in {self.pause[i]:.1f} s")
                    if (self.procs[i] is None and now >= self.due[i]
                            and not self._still_leaving(i, now)):
                        self.restarts += 1
                        self._start(i)
        finally:
            self.stop_all()
            for sig, handler in old.items():
                signal.signal(sig, handler)
            if old_fd is not None:
                signal.set_wakeup_fd(old_fd)
            woken.close()
            waker.close()
        return 0

    def _still_leaving(self, i: int, now: float) -> bool:
        """Whether worker ``i``'s last process still runs. A worker's end is known through
        its fork server; if that server died (``kill -9``), every worker is reported
        ended while it is still stopping on its parent-death signal. Its successor waits
        for it, so that two horn keepers never run side by side; past
        :data:`STOP_WAIT_S` it is killed."""
        gone = self.leaving[i]
        if gone is None:
            return False
        pid, seen = gone
        if not _running(pid):
            self.leaving[i] = None
            return False
        if now - seen > STOP_WAIT_S:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return True

    def stop_all(self) -> None:
        """SIGTERM to every worker; SIGKILL to those still there after STOP_WAIT_S."""
        live = [p for p in self.procs if p is not None and p.is_alive()]
        for p in live:
            with contextlib.suppress(OSError):
                p.terminate()
        end = time.monotonic() + STOP_WAIT_S
        for p in live:
            p.join(max(0.0, end - time.monotonic()))
        for p in live:
            if p.is_alive():
                p.kill()
                p.join(5)


def supervise(settings: Any, host: str, port: int, workers: int, *,
              organiser: str | None, open_mode: bool, officials_port: int = 0,
              listening: Mapping[int, socket.socket] | None = None,
              runtime: str | None = None) -> int:
    """Run the processes until told to stop; the exit status.

    With ``officials_port``: the officials' process on it and ``workers`` public
    processes on ``port`` (two planes). Without: ``workers`` processes on ``port`` that
    serve both planes, process 0 keeping the horns (before issue 35).

    ``listening``: the ports' listening sockets (:func:`chukker.web.holders.listen`),
    bound by the caller before anything else; a port missing there is bound here.
    ``runtime``: the folder :func:`prepare_runtime` made (and its fork server), which its
    maker removes; or None to prepare them here and remove them when the processes end."""
    listening = dict(listening or {})
    for p in (port, officials_port):
        if p and p not in listening:
            listening[p] = listen(settings.server.officials_address
                                  if p == officials_port and p != port else host, p)
    own = runtime is None  # a folder handed in is its maker's to remove
    runtime = runtime or prepare_runtime()
    planes = officials_port > 0
    total = workers + 1 if planes else workers

    def spec_of(i: int) -> WorkerSpec:
        if not planes:
            return WorkerSpec(settings, i, total, runtime, host, port, organiser, open_mode)
        return WorkerSpec(settings, i, total, runtime,
                          settings.server.officials_address if i == 0 else host,
                          officials_port if i == 0 else port,
                          organiser, open_mode, "officials" if i == 0 else "public",
                          port, officials_port)

    if planes:
        _say(f"the officials' plane on port {officials_port} (one process: API, console, "
             f"horns); the public plane on port {port} ({workers} process"
             f"{'es' if workers > 1 else ''} at nice +{PUBLIC_NICE})")
    else:
        _say(f"{workers} workers on one port; worker 0 keeps the horns")
    try:
        return Supervisor(spec_of, total, planes=planes, listening=listening).run()
    finally:
        if own:
            release_runtime(runtime)
        sys.stdout.flush()
