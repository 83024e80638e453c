"""What one viewer costs the server per message, against a bare write to its socket.

    python benchmarks/fanout_write.py [--viewers 2000] [--rounds 30] [--repeat 8] [--floor]

Opens ``--viewers`` loopback TCP connections to a uvloop server in this process
(a reader process drains them), then, alternately and ``--repeat`` times each:

* baseline: a bare ``transport.write`` of one framed SSE message to every socket;
* fan-out: the same message through the live service's :class:`Outbox` and the
  stream's :class:`SocketWire` (slices, flow control, drops), as a goal fans out: each
  slice's sockets in one call of ``fanout.send_each`` (C where it was built; the line
  printed says which).

Prints this process's CPU time per viewer per message (median and best) and the
ratio of the two: what the fan-out adds to the system call. On loopback the write
also runs the viewer's TCP receive and its wake-up, so the baseline is most of it.

``--floor`` also compiles ``benchmarks/send_floor.c`` with the machine's C compiler and
runs it with the same viewers and rounds, after the Python measurements: a bare
``send()`` from C, the kernel's own cost, under which no server written in any language
goes on this machine (issue 43: the figure of 10 us a viewer is read against it).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from chukker.live import fanout
from chukker.web.api.wire import SocketWire

MSG = (b'id: 5\nevent: event\ndata: {"seq":5,"event":{"type":"goal","team":"A","at":12.5}}'
       b'\n\nid: 5\nevent: patch\ndata: {"seq":5,"patch":{"score":{"A":3},"goals":'
       b'{"$append":[{"team":"A","player":1,"at":12.5,"period":2}]}}}\n\n')


def drain(port: int, n: int) -> None:
    """The viewers: read every socket until the server goes."""
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    sel = selectors.DefaultSelector()
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    while True:
        for key, _ in sel.select(1):
            try:
                if not key.fileobj.recv(65536):  # type: ignore[union-attr]
                    return
            except BlockingIOError:
                continue
            except OSError:
                return


class _Flow:
    write_paused = False


class _Cycle:
    response_started = chunked_encoding = True
    response_complete = disconnected = False


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    conns: list[Any] = []

    class Keep(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            conns.append(transport)

    loop = asyncio.get_running_loop()
    server = await loop.create_server(Keep, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader = multiprocessing.get_context("fork").Process(target=drain, args=(port, args.viewers))
    reader.start()
    while len(conns) < args.viewers:
        await asyncio.sleep(0.05)
    subs = set()
    for t in conns:
        sub = fanout.Subscriber()
        sub.wire = SocketWire(t, _Flow(), _Cycle())
        sub.wire.direct()  # as the stream does once its headers are out
        subs.add(sub)
    outbox = fanout.Outbox()
    framed = fanout.chunk(MSG)
    kinds = ["bare", "fanout"] + (["loop"] if args.loop else [])
    got: dict[str, list[float]] = {k: [] for k in kinds}
    ring = fanout.send_each
    for k in range(len(kinds) * args.repeat):
        kind = kinds[k % len(kinds)]
        await asyncio.sleep(0.2)
        # "loop": the fan-out with one send() system call a socket instead of the ring
        fanout.send_each = _send_loop() if kind == "loop" else ring
        c0 = time.process_time()
        for _ in range(args.rounds):
            if kind == "bare":
                for t in conns:
                    t.write(framed)
            else:
                outbox.send(MSG, subs)
                while outbox:
                    await asyncio.sleep(0)
            await asyncio.sleep(0.02)
        got[kind].append((time.process_time() - c0) * 1e6 / (args.viewers * args.rounds))
    fanout.send_each = ring
    reader.kill()
    server.close()
    out = {"bare_median_us": statistics.median(got["bare"]), "bare_best_us": min(got["bare"]),
           "fanout_median_us": statistics.median(got["fanout"]),
           "fanout_best_us": min(got["fanout"])}
    if args.loop:
        out |= {"loop_median_us": statistics.median(got["loop"]), "loop_best_us": min(got["loop"])}
    return out


def _send_loop() -> Any:
    """The C module's loop of ``send()`` (``--loop``), the ring's alternative."""
    import importlib

    return importlib.import_module("chukker.live._sendeach").send_loop


def floor(viewers: int, rounds: int) -> tuple[float, float] | None:
    """The C program's CPU per socket per message (median, best), or ``None`` with no C
    compiler (said on stderr)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        print("--floor: no C compiler (cc, gcc) on this machine", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory(prefix="chukker-floor-") as tmp:
        exe = Path(tmp) / "send_floor"
        subprocess.run([cc, "-O2", "-o", str(exe), str(Path(__file__).with_name("send_floor.c"))],
                       check=True)
        out = subprocess.run([str(exe), str(viewers), str(rounds)], check=True,
                             capture_output=True, text=True, timeout=600).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--viewers", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=8)
    ap.add_argument("--loop", action="store_true",
                    help="also the fan-out with one send() a socket (the C module's send_loop) "
                         "instead of io_uring, alternated with the rest")
    ap.add_argument("--floor", action="store_true",
                    help="also a bare send() from C (benchmarks/send_floor.c), compiled here")
    args = ap.parse_args()
    r = uvloop.run(bench(args))
    c = floor(args.viewers, args.rounds * args.repeat) if args.floor else None
    print(f"CPU per viewer per message, {args.viewers} loopback sockets (this process):")
    print(f"  baseline, bare transport.write: median {r['bare_median_us']:.2f} us, "
          f"best {r['bare_best_us']:.2f} us")
    print(f"  fan-out's sends: {fanout.sends()}")
    print(f"  fan-out (Outbox + SocketWire):  median {r['fanout_median_us']:.2f} us, "
          f"best {r['fanout_best_us']:.2f} us")
    print(f"  fan-out / bare write: {r['fanout_median_us'] / r['bare_median_us']:.2f}x (median), "
          f"{r['fanout_best_us'] / r['bare_best_us']:.2f}x (best)")
    if args.loop:
        print(f"  fan-out, one send() a socket:   median {r['loop_median_us']:.2f} us, "
              f"best {r['loop_best_us']:.2f} us; fan-out / this: "
              f"{r['fanout_median_us'] / r['loop_median_us']:.2f}x (median)")
    if c is not None:
        print(f"  floor, a bare send() from C:    median {c[0]:.2f} us, best {c[1]:.2f} us")
        print(f"  bare write / C floor: {r['bare_median_us'] / c[0]:.2f}x; fan-out / C floor: "
              f"{r['fanout_median_us'] / c[0]:.2f}x (medians)")


if __name__ == "__main__":
    main()
