"""Prometheus metrics of the live service (``prometheus_client``), served at ``/metrics``.

The live service and the API call the hook functions below; each is cheap (a
dictionary look-up and an addition) and never raises. The metrics live in one
registry per process (:data:`REGISTRY`), like the process they describe:

========================================  =========  ====================================
name                                      type       what
========================================  =========  ====================================
chukker_event_post_seconds                histogram  POST .../events, arrival to answer
chukker_horn_lateness_seconds             histogram  horn published minus its deadline
chukker_fanout_seconds                    histogram  one message handed to every stream
chukker_store_append_seconds              histogram  one durable append (by backend)
chukker_streams                           gauge      connected live streams, by kind
chukker_refusals_total                    counter    refused requests, by code
chukker_events_total                      counter    accepted events
chukker_horns_total                       counter    horns sounded
chukker_gc_pause_seconds                  histogram  garbage-collector pauses, by generation
chukker_loop_lag_seconds                  histogram  event-loop lateness of a 1 s tick
chukker_officials_door_total              counter    officials' port: requests refused
                                                     (429), connections reset at the door,
                                                     addresses shut out, by ``outcome``
chukker_officials_shut_out                gauge      addresses shut out there now
========================================  =========  ====================================

>>> horn_sounded(0.004); scrape().count(b"chukker_horn_lateness_seconds_bucket") > 5
True
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import (
    ProcessCollector as _ProcessCollector,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from chukker import ticks

REGISTRY = CollectorRegistry(auto_describe=True)
_ProcessCollector(registry=REGISTRY)

#: live-stream clients, from the page that opened the stream
STREAM_KINDS = ("console", "display", "overlay", "spectator", "sheet", "tournament", "api",
                "other")

# Horns are due on the millisecond; buckets from 1 ms to 5 s.
_FINE = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)

EVENT_POST = Histogram("chukker_event_post_seconds",
                       "Time to answer POST /api/matches/{id}/events",
                       ["status"], buckets=_FINE, registry=REGISTRY)
HORN_LATENESS = Histogram("chukker_horn_lateness_seconds",
                          "How long after its deadline a horn was published",
                          buckets=_FINE, registry=REGISTRY)
FANOUT = Histogram("chukker_fanout_seconds",
                   "Time to hand one message to every subscribed stream",
                   buckets=_FINE, registry=REGISTRY)
STORE_APPEND = Histogram("chukker_store_append_seconds", "Time of one durable append",
                         ["backend"], buckets=_FINE, registry=REGISTRY)
# in multiprocess mode (serve --workers) a gauge sums over the live workers, and a
# dead worker's share goes with it (mark_dead)
STREAMS = Gauge("chukker_streams", "Connected live streams", ["kind"], registry=REGISTRY,
                multiprocess_mode="livesum")
REFUSALS = Counter("chukker_refusals_total", "Refused requests (non-2xx answers), by code",
                   ["code"], registry=REGISTRY)
EVENTS = Counter("chukker_events_total", "Events accepted", registry=REGISTRY)
HORNS = Counter("chukker_horns_total", "Horns sounded", registry=REGISTRY)
WORKER = Gauge("chukker_worker", "This process's place among the workers of one port "
               "(serve --workers): 1 for its index, the worker count and whether it keeps "
               "the horns", ["index", "workers", "horn_keeper"], registry=REGISTRY,
               multiprocess_mode="liveall")
for _k in STREAM_KINDS:
    STREAMS.labels(_k)

#: what the officials' door has counted: refused, reset, shut out so far; shut out now
DoorCounts = tuple[int, int, int, int]


class DoorCollector:
    """The officials' door's counts, read from the gate when scraped (issue 41): the
    door itself adds to plain integers and pays nothing for being watched."""

    def __init__(self) -> None:
        self.read: Callable[[], DoorCounts] | None = None

    def collect(self) -> Iterator[Metric]:
        if self.read is None:
            return
        refused, reset, shutouts, shut_now = self.read()
        door = CounterMetricFamily(
            "chukker_officials_door", "The officials' port: requests refused (429), "
            "connections reset at the door, addresses shut out", labels=["outcome"])
        for outcome, n in (("refused", refused), ("reset", reset), ("shutout", shutouts)):
            door.add_metric([outcome], n)
        yield door
        yield GaugeMetricFamily("chukker_officials_shut_out",
                                "Addresses shut out at the officials' port now", value=shut_now)


DOOR = DoorCollector()
REGISTRY.register(DOOR)

#: a code is a short snake_case word; anything else is counted as "other"
_MAX_CODES = 200
_codes: set[str] = set()


# ------------------------------------------------------------------- hooks

def worker_role(index: int, workers: int, horn_keeper: bool) -> None:
    """Label this process's metrics with its worker number (``serve --workers``)."""
    WORKER.labels(str(index), str(workers), "true" if horn_keeper else "false").set(1)


def watch_door(read: Callable[[], DoorCounts]) -> None:
    """Scrape the officials' door from ``read`` (the officials' process, once at start)."""
    DOOR.read = read


def event_posted(seconds: float, status: int) -> None:
    """An event POST was answered with ``status`` after ``seconds``."""
    EVENT_POST.labels(str(status)).observe(max(seconds, 0.0))


def event_accepted() -> None:
    """An event POST is about to be answered ``201``: counted before the answer leaves,
    so that a scrape made after the answer always counts it."""
    EVENTS.inc()


def horn_sounded(late_seconds: float) -> None:
    """A horn went out ``late_seconds`` after its deadline."""
    HORN_LATENESS.observe(max(late_seconds, 0.0))
    HORNS.inc()


def fanned_out(seconds: float) -> None:
    """One message reached every subscriber's queue in ``seconds``."""
    FANOUT.observe(max(seconds, 0.0))


def store_appended(seconds: float, backend: str) -> None:
    STORE_APPEND.labels(backend).observe(max(seconds, 0.0))


def stream_opened(kind: str) -> None:
    STREAMS.labels(kind if kind in STREAM_KINDS else "other").inc()


def stream_closed(kind: str) -> None:
    STREAMS.labels(kind if kind in STREAM_KINDS else "other").dec()


def refused(code: str) -> None:
    """A request was refused with the API error ``code``."""
    if code not in _codes:
        ok = code.replace("_", "").isalnum() and code.isascii() and len(code) <= 40
        if not ok or len(_codes) >= _MAX_CODES:
            code = "other"
        else:
            _codes.add(code)
    REFUSALS.labels(code).inc()


@contextmanager
def timed_append(backend: str) -> Iterator[None]:
    """``with timed_append("sqlite"): store.append(...)``."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        store_appended(time.perf_counter() - t0, backend)


#: the environment variable naming the folder where the workers of ``serve --workers``
#: keep their metrics (prometheus_client's multiprocess mode; the supervisor sets it)
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def scrape() -> bytes:
    """The metrics in Prometheus' text format: this process's, or with ``serve --workers``
    every worker's together (counters and histograms summed, ``chukker_streams`` summed
    over the live workers), whichever worker the scrape reached."""
    folder = os.environ.get(MULTIPROC_ENV)
    if not folder:
        return generate_latest(REGISTRY)
    from prometheus_client import multiprocess

    combined = CollectorRegistry()
    multiprocess.MultiProcessCollector(combined, path=folder)  # type: ignore[no-untyped-call]
    combined.register(DOOR)  # the door's counts are this process's own
    return generate_latest(combined)


def mark_dead(pid: int) -> None:
    """A worker ended: its live gauges (streams, worker role) leave the sums (called by
    the supervisor; nothing in single-process mode)."""
    folder = os.environ.get(MULTIPROC_ENV)
    if folder:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]


CONTENT_TYPE = CONTENT_TYPE_LATEST


def stream_kind(path_hint: str | None) -> str:
    """The kind of client from the page that opened a stream (its Referer path or ``?kind=``).

    >>> stream_kind("/m/abc/display"), stream_kind("/m/abc"), stream_kind(None)
    ('display', 'spectator', 'api')
    """
    if not path_hint:
        return "api"
    if path_hint in STREAM_KINDS:
        return path_hint
    parts = [p for p in path_hint.split("?")[0].split("/") if p]
    if len(parts) >= 2 and parts[0] == "m":
        if len(parts) == 2:
            return "spectator"
        return parts[2] if parts[2] in STREAM_KINDS else "other"
    return "other"


GC_PAUSE = Histogram("chukker_gc_pause_seconds", "Garbage-collector pauses, by generation",
                     ["generation"], buckets=_FINE, registry=REGISTRY)
LOOP_LAG = Histogram("chukker_loop_lag_seconds",
                     "How late the event loop ran its 1 s tick (what delays a fan-out or a horn)",
                     buckets=_FINE, registry=REGISTRY)
_gc_started: list[float] = []


def _on_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started.append(time.perf_counter())
    elif _gc_started:
        GC_PAUSE.labels(str(info.get("generation", "?"))).observe(
            time.perf_counter() - _gc_started.pop())


def watch_gc() -> None:
    """Time every collection (once per process): a full collection with thousands of
    streams open is what stalls a fan-out, if anything does.

    >>> watch_gc(); watch_gc(); gc.callbacks.count(_on_gc)
    1
    """
    if _on_gc not in gc.callbacks:
        gc.callbacks.append(_on_gc)


#: seconds between two measures of the event loop's lateness (on the process's one grid)
LAG_EVERY_S = 1.0


async def watch_loop(every_s: float = LAG_EVERY_S) -> None:
    """Measure the event loop's lateness on a tick, forever (a task of the server).

    The tick falls on the whole seconds of the loop's clock with the process's other
    housekeeping (:mod:`chukker.ticks`): an idle server wakes once a second for all of
    it. A stall of a second or more is always seen; a shorter one by chance, in
    proportion to its length (the fan-out's own histogram and the collector's pauses
    time the rest)."""
    loop = asyncio.get_running_loop()
    while True:
        due = await ticks.sleep_to(every_s)
        LOOP_LAG.observe(max(0.0, loop.time() - due))
