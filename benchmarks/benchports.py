"""What the benchmarks that start servers share: ports another person's machine has free,
and another revision's sources, for a baseline measured in the same run (issue 43).

* :func:`pick_ports`: ports outside the machine's range for outgoing connections
  (``/proc/sys/net/ipv4/ip_local_port_range``), so that none of the thousands of client
  sockets a benchmark opens can take the server's port first; each one checked by binding
  it, starting from a random place so that two runs side by side do not collide.
* :func:`cpu_s`: a process's user and system CPU seconds so far (``/proc``);
  :func:`schedstat`: its CPU to the nanosecond and its times put on a core;
  :func:`descendants`: a process and its descendants (:func:`parent_of`); :func:`stop`:
  SIGTERM, then SIGKILL.
* :func:`revision_tree`: ``git archive REV src`` unpacked in a temporary folder (removed
  by the caller): the server of another revision, run from its own sources.
  Compiled engine modules (``.so``) are not in git, so both sides then run the pure
  Python engine unless the current tree was built: say which (see :func:`compiled`).

>>> lo, hi = ephemeral_range()
>>> all(not lo <= p <= hi for p in pick_ports(3))
True
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' port helpers: one reading of the range, one check

from tests.ports import bindable  # noqa: E402
from tests.ports import ephemeral as ephemeral_range  # noqa: E402


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def schedstat(pid: int) -> tuple[int, int]:
    """(CPU nanoseconds, times put on a core) of every thread of ``pid`` so far
    (``/proc/<pid>/task/*/schedstat``); a thread gone meanwhile counts nothing."""
    ns = slices = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            f = Path(f"/proc/{pid}/task/{t}/schedstat").read_text().split()
            ns, slices = ns + int(f[0]), slices + int(f[2])
        except (OSError, IndexError, ValueError):
            continue
    return ns, slices


def parent_of(pid: int) -> int:
    """``pid``'s parent (``/proc``); -1 where it cannot be read (gone)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def descendants(pid: int) -> list[int]:
    """``pid`` and its descendants, ``pid`` first (``/proc``): a server's supervisor, its
    fork server and the workers forked from it."""
    parents = {int(d): parent_of(int(d)) for d in os.listdir("/proc") if d.isdigit()}
    found, todo = [pid], [pid]
    while todo:
        parent = todo.pop()
        kids = [c for c, pp in parents.items() if pp == parent]
        found.extend(kids)
        todo.extend(kids)
    return found


def stop(proc: subprocess.Popen[Any], wait_s: float) -> None:
    """SIGTERM to ``proc`` (a supervisor stops its workers), SIGKILL after ``wait_s``."""
    proc.terminate()
    try:
        proc.wait(wait_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


#: the lowest port picked (below: well-known and registered services people run)
LOWEST = 20_000


def pick_ports(n: int, host: str = "127.0.0.1") -> list[int]:
    """``n`` distinct ports outside the outgoing range, each free now (bound, released)."""
    lo, hi = ephemeral_range()
    if lo > LOWEST + 1000:
        candidates = range(LOWEST, lo)
    elif hi < 65535 - 1000:
        candidates = range(hi + 1, 65536)
    else:  # pragma: no cover - a machine whose outgoing range is everything
        candidates = range(LOWEST, 65536)
    start = random.randrange(len(candidates))
    found: list[int] = []
    for k in range(len(candidates)):
        port = candidates[(start + k) % len(candidates)]
        if bindable(host, port) and bindable("0.0.0.0", port):
            found.append(port)
            if len(found) == n:
                return found
    raise RuntimeError(f"no {n} free ports outside {lo}-{hi}")


def revision_tree(rev: str, into: Path) -> Path:
    """The ``src`` folder of revision ``rev`` of this repository, unpacked under ``into``."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "src"],
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def compiled(src: Path) -> bool:
    """Whether ``src`` holds compiled engine modules (mypyc's ``.so``)."""
    return any((src / "chukker" / "engine").glob("*.so"))
