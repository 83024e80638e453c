"""A py-spy profile of a server process, split into the parts of a fan-out (issue 43).

    python benchmarks/live.py --public-workers 1 --clients 1000 --events 60 --horns 0 \\
        --depth-posts 0 &                      # then, once the viewers are connected:
    py-spy record -p <pid> -d 10 -r 250 -f raw -o public.raw --threads --nonblocking
    python benchmarks/profile_split.py public.raw [--cpu-s 1.24 --events 50 --viewers 1000]

(``<pid>``: the public worker, the niced child of ``python -m chukker.web``; or the
officials' process; or the one process of a revision before the two planes.)

Each sample (a stack) goes to the first part it belongs to, looking from the innermost
frame out:

* **writes**: the per-viewer writes (``Outbox._pump``, ``SocketWire.write``: the
  ``send`` system call is most of it);
* **frame**: building the message: the report, the merge patch, the JSON, the encoding;
* **fold**: the engine applying the event (``Match.apply``);
* **read**: learning of the event: the notification (datagram, ``data_version``) and the
  store's read, the thread hops included;
* **request**: HTTP requests served (the operator's POST on a process that takes it);
* **loop**: the event loop itself and everything else.

Threads of a pool waiting for work are idle, not counted. With ``--cpu-s`` (the
process's CPU seconds over the recording, from ``/proc/<pid>/stat``), ``--events`` and
``--viewers`` it prints each part in microseconds per event and per viewer per message.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("writes", ("Outbox._pump", "SocketWire.write", "Outbox.send")),
    ("frame", ("merge_diff", "(chukker/live/fanout.py", "_publish_change", "_state_message",
               "LiveService.report", "Match.report", "json/", "_broadcast")),
    ("fold", ("Match.apply", "chukker/engine/")),
    ("read", ("notifications", "LocalNotifier", "SQLiteStore.events", "data_version",
              "appended_since", "told_events", "LiveService._sync", "to_thread",
              "_chain_future", "_copy_future_state", "futures.py", "sqlite.py", "notify.py",
              "Lock.", "locks.py")),
    ("request", ("uvicorn/protocols", "starlette/", "fastapi/", "chukker/web/")),
)
_IDLE = re.compile(r"_worker \(concurrent/futures/thread\.py:\d+\)$")


def split(path: str) -> Counter[str]:
    parts: Counter[str] = Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not n.isdigit():
                continue
            frames = stack.split(";")
            if _IDLE.search(frames[-1]) or frames[-1].startswith("_watch_supervisor"):
                parts["idle"] += int(n)
                continue
            part: str | None = None
            for frame in reversed(frames):
                if frame.startswith(("Runner.run (", "run_worker (")):  # the loop's own
                    part = "loop"
                    break
                part = next((name for name, marks in PARTS if any(m in frame for m in marks)),
                            None)
                if part is not None:
                    break
            parts[part or "loop"] += int(n)
    return parts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raw", nargs="+", help="py-spy raw files (-f raw)")
    ap.add_argument("--cpu-s", type=float, help="the process's CPU seconds over the recording")
    ap.add_argument("--events", type=int, help="events fanned out over the recording")
    ap.add_argument("--viewers", type=int, default=1000)
    a = ap.parse_args()
    total: Counter[str] = Counter()
    for p in a.raw:
        total.update(split(p))
    busy = sum(v for k, v in total.items() if k != "idle")
    print(f"{busy} busy samples ({total['idle']} idle pool threads left out)")
    for name in ("read", "fold", "frame", "writes", "request", "loop"):
        share = total[name] / max(1, busy)
        line = f"  {name:8} {share:6.1%}"
        if a.cpu_s and a.events:
            per_event = share * a.cpu_s * 1e6 / a.events
            line += (f"  {per_event:8.0f} us per event  "
                     f"{per_event / a.viewers:6.2f} us per viewer per message")
        print(line)


if __name__ == "__main__":
    main()
