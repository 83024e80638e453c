"""Named, bounded pools for the work that must never delay a key press or a horn.

One pool per kind of heavy work (:class:`Kind`): plays analysis of an upload, PDF
rendering, rule pages and search, tournament and other imports, and the drawings
(a play's diagram, SVG or PNG, a review's moments and heat maps). Each has

* a global concurrency (its workers) and a per-address share of it;
* a queue: a request waits at most ``wait_s`` for a worker, then is refused with
  503, ``Retry-After`` and the translated code ``heavy_busy`` (:class:`Busy`);
* for the process pools, a memory cap per worker (``RLIMIT_AS``) and a wall-clock
  timeout after which the worker is killed (pebble), refused as ``heavy_limit``.

Why processes for plays, PDF and rules: GPS analysis (NumPy, pyarrow, SciPy and
Python loops in the detectors), WeasyPrint and Jinja rendering of a large rule
page hold the GIL for most of their time. In a thread of the server's process
they delay the event loop at every switch interval (5 ms, many times per POST)
and their memory counts in the server's RSS; in a worker process they can do
neither, and a runaway file is killed without touching the server. Tournament
imports are small (capped at :data:`chukker.limits.TOURNAMENT_BODY_BYTES`), so
they keep a thread pool of their own. None of these executors is the one the
event store writes with (``chukker.live``'s own executor), nor asyncio's default.

>>> import asyncio
>>> pools = Pools(specs={Kind.IMPORTS: PoolSpec(Kind.IMPORTS, 1, 1, 0.01, 5.0, None, False)})
>>> asyncio.run(pools.run(Kind.IMPORTS, "127.0.0.1", sum, [[1, 2]]))
3
>>> pools.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import resource
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from chukker.errors import ChukkerError
from chukker.limits import MESSAGES as LIMIT_MESSAGES

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


class Kind(StrEnum):
    """The kinds of heavy work, each with a pool of its own (names travel in refusals)."""

    PLAYS = "plays"
    PDF = "pdf"
    RULES = "rules"
    IMPORTS = "imports"
    DRAWINGS = "drawings"


@dataclass(frozen=True, slots=True)
class PoolSpec:
    """How much of one kind of work the server takes at once."""

    kind: Kind
    workers: int  # at once, in total
    per_address: int  # at once or waiting, per client address
    wait_s: float  # longest wait for a worker before 503
    timeout_s: float  # wall clock of one task (process pools: the worker is killed)
    memory_mb: int | None  # address space of a worker process (RLIMIT_AS)
    processes: bool = True
    queue: int = 16  # requests waiting at most, in total


def _cpus() -> int:
    return max(1, min(2, (os.cpu_count() or 1) - 1))


#: the defaults: one worker per kind on a small machine, a short queue
DEFAULT_SPECS: dict[Kind, PoolSpec] = {
    Kind.PLAYS: PoolSpec(Kind.PLAYS, _cpus(), 1, 5.0, 120.0, 1024),
    Kind.PDF: PoolSpec(Kind.PDF, 1, 2, 5.0, 30.0, 1024),
    Kind.RULES: PoolSpec(Kind.RULES, _cpus(), 2, 5.0, 20.0, 1024),
    Kind.IMPORTS: PoolSpec(Kind.IMPORTS, 1, 1, 5.0, 30.0, None, processes=False),
    # a quiz page asks for each of its play pictures at once: a larger share per address
    Kind.DRAWINGS: PoolSpec(Kind.DRAWINGS, _cpus(), 12, 5.0, 20.0, 1024, queue=48),
}

#: the codes of this module's refusals (es, it: ``web/locales/*/api.po``)
MESSAGES: dict[str, str] = {k: v for k, v in LIMIT_MESSAGES.items() if k.startswith("heavy_")}


@dataclass(eq=False)
class Busy(ChukkerError):
    """No worker of ``kind`` within the queue wait (503, ``Retry-After``)."""

    kind: Kind
    retry_after: int = 2
    code: str = "heavy_busy"
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.params = {"kind": str(self.kind), "retry_after": self.retry_after}
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return MESSAGES[self.code].format(**self.params)

    def __str__(self) -> str:
        return self.message


@dataclass(eq=False)
class OverLimit(ChukkerError):
    """A task ran past its wall clock or its memory (422 ``heavy_limit``)."""

    kind: Kind
    limit: str
    code: str = "heavy_limit"
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.params = {"kind": str(self.kind), "limit": self.limit}
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return MESSAGES[self.code].format(**self.params)

    def __str__(self) -> str:
        return self.message


def _worker_init(memory_mb: int | None) -> None:  # pragma: no cover - runs in the worker
    """Cap the worker's address space; one BLAS thread (the server has the other cores)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if memory_mb is not None:
        cap = memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


class Pool:
    """One kind's workers, its global and per-address limits and its queue."""

    def __init__(self, spec: PoolSpec) -> None:
        self.spec = spec
        self.by_address: Counter[str] = Counter()
        self.waiting = 0
        self.running = 0
        self._slots: asyncio.Semaphore | None = None
        self._procs: Any = None
        self._threads: concurrent.futures.ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.done = 0
        self.refused = 0

    def _semaphore(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.spec.workers)
        return self._slots

    def _process_pool(self) -> Any:
        with self._lock:
            if self._procs is None:
                import pebble

                self._procs = pebble.ProcessPool(
                    max_workers=self.spec.workers,
                    max_tasks=64,
                    initializer=_worker_init,
                    initargs=(self.spec.memory_mb,),
                    context=multiprocessing.get_context("forkserver"),
                )
            return self._procs

    def _thread_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        with self._lock:
            if self._threads is None:
                self._threads = concurrent.futures.ThreadPoolExecutor(
                    self.spec.workers, thread_name_prefix=f"chukker-{self.spec.kind}"
                )
            return self._threads

    def admits(self, address: str) -> bool:
        """Whether a request from ``address`` would get in line now (the guard asks first,
        before the request's body is read)."""
        spec = self.spec
        if self.by_address[address] >= spec.per_address:
            return False
        return self.running < spec.workers or self.waiting < spec.queue

    def busy(self) -> Busy:
        """The refusal for a request that does not get in line."""
        self.refused += 1
        return Busy(self.spec.kind, max(1, round(self.spec.wait_s)))

    _busy = busy

    async def run(self, address: str, fn: Callable[..., T], args: list[Any] | tuple[Any, ...]) -> T:
        """``fn(*args)`` on a worker of this pool; :class:`Busy` or :class:`OverLimit`."""
        spec = self.spec
        if self.by_address[address] >= spec.per_address or self.waiting >= spec.queue:
            raise self._busy()
        self.by_address[address] += 1
        try:
            slots = self._semaphore()
            self.waiting += 1
            try:
                await asyncio.wait_for(slots.acquire(), spec.wait_s)
            except TimeoutError:
                raise self._busy() from None
            finally:
                self.waiting -= 1
            self.running += 1
            try:
                return await self._call(fn, args)
            finally:
                self.running -= 1
                self.done += 1
                slots.release()
        finally:
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]

    async def _call(self, fn: Callable[..., T], args: list[Any] | tuple[Any, ...]) -> T:
        spec = self.spec
        limit = f"{spec.timeout_s:g} s" + (f", {spec.memory_mb} MB" if spec.memory_mb else "")
        if spec.processes:
            import pebble

            future = self._process_pool().schedule(fn, args=list(args), timeout=spec.timeout_s)
            try:
                result: T = await asyncio.wrap_future(future)
            except concurrent.futures.TimeoutError:
                raise OverLimit(spec.kind, limit) from None
            except (MemoryError, pebble.ProcessExpired):
                raise OverLimit(spec.kind, limit) from None
            except asyncio.CancelledError:
                future.cancel()  # the client left: pebble stops the worker's task
                raise
            return result
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(
                loop.run_in_executor(self._thread_pool(), fn, *args), spec.timeout_s
            )
        except TimeoutError:
            raise OverLimit(spec.kind, limit) from None
        except MemoryError:
            raise OverLimit(spec.kind, limit) from None

    def close(self) -> None:
        with self._lock:
            if self._procs is not None:
                self._procs.stop()
                self._procs.join(timeout=5)
                self._procs = None
            if self._threads is not None:
                self._threads.shutdown(wait=False, cancel_futures=True)
                self._threads = None

    def stats(self) -> dict[str, int]:
        return {"running": self.running, "waiting": self.waiting, "done": self.done,
                "refused": self.refused}  # fmt: skip


class Pools:
    """The app's pools, one per :class:`Kind` (``app.state.heavy``)."""

    def __init__(self, specs: dict[Kind, PoolSpec] | None = None) -> None:
        self.specs = dict(DEFAULT_SPECS) | dict(specs or {})
        self.pools = {k: Pool(s) for k, s in self.specs.items()}

    async def run(
        self, kind: Kind, address: str, fn: Callable[..., T], args: list[Any] | tuple[Any, ...]
    ) -> T:
        return await self.pools[kind].run(address, fn, args)

    def close(self) -> None:
        for p in self.pools.values():
            p.close()


class Recent(Generic[K, V]):
    """The latest ``size`` answers by key (a drawing already made is served from memory,
    without a worker).

    >>> r: Recent[str, int] = Recent(2)
    >>> r.put("a", 1); r.put("b", 2); r.put("c", 3)
    >>> r.get("a"), r.get("c")
    (None, 3)
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        v = self.items.get(key)
        if v is not None:
            self.items.move_to_end(key)
        return v

    def put(self, key: K, value: V) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


_FALLBACK: Pools | None = None


def pools_of(found: Pools | None) -> Pools:
    """The app's pools (``found``: its state's ``heavy``); one process-wide set for
    standalone routers (``None``)."""
    global _FALLBACK
    if found is not None:
        return found
    if _FALLBACK is None:
        _FALLBACK = Pools()
    return _FALLBACK
