"""Issue 43: the fan-out sends a slice's message to its sockets' descriptors in one call
(``fanout.send_each``) while their transports hold nothing buffered; the bytes never
overtake each other, and a descriptor is never written to after its socket is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import struct
import unittest.mock
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvloop
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.live import fanout
from chukker.web.api.wire import SocketWire

SENDERS: dict[str, Callable[[list[int], bytes], list[tuple[int, int]] | None]] = {
    "python": fanout._send_each_py}
if fanout.SEND_EACH_NATIVE:
    import chukker.live._sendeach as native

    SENDERS["c"] = fanout.send_each  # io_uring where the kernel lets this process use it
    SENDERS["c_loop"] = native.send_loop  # one send() a socket
LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "uvloop": uvloop.new_event_loop, "asyncio": asyncio.new_event_loop}


def test_the_c_sender_is_built_where_the_engine_is() -> None:
    """The project's own build (setup.sh, CI) compiles it; without a C compiler the
    fan-out falls back to :func:`fanout._send_each_py`."""
    from chukker.engine import NATIVE

    if NATIVE:
        assert fanout.SEND_EACH_NATIVE, "chukker.live._sendeach was not built"


@contextlib.contextmanager
def _pairs(n: int) -> Iterator[list[tuple[socket.socket, socket.socket]]]:
    pairs = [socket.socketpair() for _ in range(n)]
    try:
        for a, _ in pairs:
            a.setblocking(False)
            a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        yield pairs
    finally:
        for a, b in pairs:
            a.close()
            b.close()


def _answers(sender: Any, kinds: list[str], data: bytes) -> tuple[Any, list[bytes]]:
    """Send ``data`` to sockets in the states ``kinds`` names; what the sender answered,
    and what each open peer received."""
    with _pairs(len(kinds)) as pairs:
        fds = []
        for (a, b), kind in zip(pairs, kinds, strict=True):
            if kind == "full":  # its buffer already full: takes nothing, or a part
                with contextlib.suppress(BlockingIOError):
                    while True:
                        a.send(b"f" * 4096)
            elif kind == "gone":  # its peer closed: EPIPE (Python ignores SIGPIPE)
                b.close()
            fds.append(-1 if kind == "bad" else a.fileno())
        answer = sender(fds, data)
        got = []
        for (_, b), kind in zip(pairs, kinds, strict=True):
            if kind == "open":
                b.setblocking(False)
                buf = b""
                with contextlib.suppress(BlockingIOError):
                    while len(buf) < len(data):
                        part = b.recv(1 << 20)
                        if not part:
                            break
                        buf += part
                got.append(buf)
        return answer, got


@pytest.mark.parametrize("sender", sorted(SENDERS))
def test_send_each_sends_whole_to_every_open_socket_and_names_the_others(sender: str) -> None:
    data = b"x" * 353
    answer, got = _answers(SENDERS[sender], ["open", "bad", "open", "gone", "full", "open"],
                           data)
    assert got == [data, data, data]
    failed = dict(answer)
    assert sorted(failed) == [1, 3, 4]
    assert failed[1] == -errno.EBADF
    assert failed[3] == -errno.EPIPE
    assert failed[4] == -errno.EAGAIN or 0 <= failed[4] < len(data)


@settings(max_examples=40, deadline=None)
@given(kinds=st.lists(st.sampled_from(["open", "bad", "gone", "full"]), max_size=12),
       size=st.integers(1, 9000))
def test_send_each_in_c_answers_as_the_pure_python_sender(kinds: list[str], size: int) -> None:
    if not fanout.SEND_EACH_NATIVE:
        pytest.skip("chukker.live._sendeach was not built here (no C compiler)")
    data = bytes(range(256)) * (size // 256) + b"y" * (size % 256)
    py, py_got = _answers(fanout._send_each_py, kinds, data)
    for name in ("c", "c_loop"):
        c, c_got = _answers(SENDERS[name], kinds, data)
        # a full socket may take a different part each time: compare which failed, and how
        assert [(i, r < 0) for i, r in c or []] == [(i, r < 0) for i, r in py or []], name
        assert [r for _, r in c or [] if r < 0] == [r for _, r in py or [] if r < 0], name
        assert c_got == py_got, name


def test_send_each_takes_more_sockets_than_a_ring_holds_in_order() -> None:
    """A call of 150 sockets goes in batches of 64 (the ring's size): each gets it once."""
    for name, sender in SENDERS.items():
        with _pairs(150) as pairs:
            assert sender([a.fileno() for a, _ in pairs], b"m") is None, name
            assert [b.recv(4) for _, b in pairs] == [b"m"] * 150, name


def test_a_forked_worker_sends_on_a_ring_of_its_own() -> None:
    """The public workers are forked: a ring made before the fork is the parent's, and
    the child, seeing another process id, makes its own; both send."""
    if not fanout.SEND_EACH_NATIVE:
        pytest.skip("chukker.live._sendeach was not built here (no C compiler)")
    with _pairs(2) as pairs:
        native.uring()  # the parent's ring, if the kernel gives one
        pid = os.fork()
        if pid == 0:
            code = 0 if fanout.send_each([pairs[0][0].fileno()], b"child") is None else 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert fanout.send_each([pairs[1][0].fileno()], b"parent") is None
        assert pairs[0][1].recv(16) == b"child" and pairs[1][1].recv(16) == b"parent"


class _Flow:
    write_paused = False


class _Cycle:
    response_started = chunked_encoding = True
    response_complete = disconnected = False


def _server_protocol(kept: list[Any]) -> type[asyncio.Protocol]:
    class Viewer(asyncio.Protocol):
        """The server's side of a viewer, with uvicorn's flow control's duties."""

        def connection_made(self, transport: Any) -> None:
            sock = transport.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            self.flow = _Flow()
            self.wire = SocketWire(transport, self.flow, _Cycle())
            self.wire.limit = 100_000
            kept.append(self)

        def pause_writing(self) -> None:
            self.flow.write_paused = True
            self.wire.paused()

        def resume_writing(self) -> None:
            self.flow.write_paused = False
            self.wire.resumed()

        def connection_lost(self, exc: Exception | None) -> None:
            self.wire.lost()

    return Viewer


def _run(loop_kind: str, body: Callable[[], Any]) -> Any:
    loop = LOOPS[loop_kind]()
    try:
        return loop.run_until_complete(body())
    finally:
        loop.close()


@pytest.mark.parametrize("loop_kind", sorted(LOOPS))
@pytest.mark.parametrize("sender", sorted(SENDERS))
def test_a_viewer_that_stops_reading_gets_every_byte_in_order_and_goes_direct_again(
        loop_kind: str, sender: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its socket fills: a send takes part of a message, the rest waits in the transport,
    and the messages after it go through the transport behind it, never around it;
    once the transport's buffer is empty the wire is on the direct path again."""
    monkeypatch.setattr(fanout, "send_each", SENDERS[sender])
    messages = [b"%05d:" % k + bytes([65 + k % 26]) * (1500 + 97 * k) for k in range(60)]

    async def body() -> None:
        kept: list[Any] = []
        loop = asyncio.get_running_loop()
        server = await loop.create_server(_server_protocol(kept), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        viewer = socket.socket()
        viewer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        viewer.connect(("127.0.0.1", port))
        viewer.setblocking(False)
        while not kept:
            await asyncio.sleep(0.01)
        (proto,) = kept
        sub = fanout.Subscriber()
        sub.wire = proto.wire
        proto.wire.direct()
        assert proto.wire.fd == proto.wire._fileno >= 0
        outbox = fanout.Outbox()
        left_direct = False
        for m in messages:  # the viewer reads nothing meanwhile
            outbox.send(m, {sub})
            while outbox:
                await asyncio.sleep(0)
            left_direct = left_direct or proto.wire.fd < 0
        assert left_direct, "the socket never filled: the test proves nothing"
        assert not sub.dropped
        got = b""
        want = b"".join(fanout.chunk(m) for m in messages)
        while len(got) < len(want):
            try:
                part = viewer.recv(1 << 16)
            except BlockingIOError:
                await asyncio.sleep(0.005)
                continue
            assert part
            got += part
        assert got == want
        while proto.wire.transport.get_write_buffer_size() or proto.flow.write_paused:
            await asyncio.sleep(0.01)
        outbox.send(b"after", {sub})  # through the transport, then direct again
        assert proto.wire.fd >= 0
        outbox.send(b"direct", {sub})
        await asyncio.sleep(0.05)
        assert viewer.recv(1 << 16) == fanout.chunk(b"after") + fanout.chunk(b"direct")
        viewer.close()
        server.close()

    _run(loop_kind, body)


@pytest.mark.parametrize("loop_kind", sorted(LOOPS))
@pytest.mark.parametrize("how", ["close", "abort", "peer_reset", "peer_eof"])
def test_connection_lost_comes_before_the_socket_is_closed(loop_kind: str, how: str) -> None:
    """What direct sends rest on: the wire clears its descriptor in ``connection_lost``,
    and both event loops call it while the descriptor is still this connection's, so a
    number the kernel gives again to a new viewer is never written to for an old one."""

    async def body() -> None:
        seen: list[tuple[int, int]] = []

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: Any) -> None:
                self.transport = transport
                self.fd = transport.get_extra_info("socket").fileno()
                self.inode = os.fstat(self.fd).st_ino
                probes.append(self)

            def connection_lost(self, exc: Exception | None) -> None:
                seen.append((os.fstat(self.fd).st_ino, self.inode))

        probes: list[Probe] = []
        loop = asyncio.get_running_loop()
        server = await loop.create_server(Probe, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        peer = socket.create_connection(("127.0.0.1", port))
        while not probes:
            await asyncio.sleep(0.01)
        if how == "close":
            probes[0].transport.close()
        elif how == "abort":
            probes[0].transport.abort()
        elif how == "peer_reset":
            peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            peer.close()
            probes[0].transport.write(b"x" * 100)
        else:
            peer.shutdown(socket.SHUT_WR)
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.01)
        assert seen and seen[0][0] == seen[0][1]
        peer.close()
        server.close()

    _run(loop_kind, body)


@pytest.mark.parametrize("loop_kind", sorted(LOOPS))
def test_a_viewer_gone_with_a_reset_is_dropped_from_the_direct_path_and_its_stream_ends(
        loop_kind: str) -> None:
    async def body() -> None:
        kept: list[Any] = []
        loop = asyncio.get_running_loop()
        server = await loop.create_server(_server_protocol(kept), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        viewer = socket.create_connection(("127.0.0.1", port))
        while not kept:
            await asyncio.sleep(0.01)
        (proto,) = kept
        sub = fanout.Subscriber()
        sub.wire = proto.wire
        proto.wire.waiter = loop.create_future()
        proto.wire.direct()
        viewer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        viewer.close()
        await asyncio.sleep(0.05)
        outbox = fanout.Outbox()
        for k in range(3):
            outbox.send(b"m%d" % k, {sub})
            while outbox:
                await asyncio.sleep(0)
        await asyncio.wait_for(proto.wire.waiter, 5)
        assert proto.wire.fd == -1 and proto.wire.fast is None
        server.close()

    _run(loop_kind, body)


class _Direct:
    """A wire on the direct path: its descriptor, no transport write."""

    fast = None

    def __init__(self, fd: int) -> None:
        self.fd = fd


def test_direct_sends_go_a_slice_at_a_time_so_a_timer_due_meanwhile_is_not_held() -> None:
    """The guard's fourth question: one call sends at most ``FANOUT_SLICE`` messages (the
    GIL is held for a slice, about half a millisecond), and the loop runs its timers
    and callbacks between two slices, as it did between two slices of transport writes."""
    n = 3 * fanout.FANOUT_SLICE + 5
    calls: list[Any] = []

    def recording(fds: list[int], data: bytes) -> list[tuple[int, int]] | None:
        calls.append(len(fds))
        return fanout._send_each_py(fds, data)

    async def body() -> None:
        with _pairs(n) as pairs:
            subs = set()
            for a, _ in pairs:
                sub = fanout.Subscriber()
                sub.wire = _Direct(a.fileno())  # type: ignore[assignment]
                subs.add(sub)
            outbox = fanout.Outbox()
            loop = asyncio.get_running_loop()
            outbox.send(b"goal", subs)
            loop.call_soon(lambda: calls.append("timer"))
            while outbox:
                await asyncio.sleep(0)
            assert all(b.recv(64) == fanout.chunk(b"goal") for _, b in pairs)

    with unittest.mock.patch.object(fanout, "send_each", recording):
        asyncio.run(body())
    # the first slice goes at once and queues the next; the callback queued after the
    # send runs right behind that one, before the third and the fourth
    assert calls[0] == fanout.FANOUT_SLICE and calls.index("timer") == 2
    assert [c for c in calls if c != "timer"] == [64, 64, 64, 5]


@pytest.mark.parametrize(("how", "said"), [("python", "pure Python"), ("send", "send()"),
                                           ("bogus", "CHUKKER_FANOUT_SENDS='bogus'")])
def test_chukker_fanout_sends_chooses_how_the_fan_out_sends(how: str, said: str) -> None:
    """An operator whose kernel refuses io_uring, or who distrusts it, says ``send``; a
    word that is not one of the three stops the process at once, with the three named."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", "from chukker.live import fanout; "
                          "print(fanout.sends())"], capture_output=True, text=True,
                         env={**os.environ, "CHUKKER_FANOUT_SENDS": how}, timeout=60)
    if how == "bogus":
        assert run.returncode != 0 and "ring, send or python" in run.stderr
    elif how == "send" and not fanout.SEND_EACH_NATIVE:
        assert "pure Python" in run.stdout
    else:
        assert said in run.stdout, run.stderr


def _recording(sent: list[tuple[int, int]]) -> Callable[[list[int], bytes],
                                                        list[tuple[int, int]] | None]:
    """``send_each`` that notes (sockets, bytes) of each call, then sends."""
    def recording(fds: list[int], data: bytes) -> list[tuple[int, int]] | None:
        sent.append((len(fds), len(data)))
        return fanout._send_each_py(fds, data)
    return recording


def _drain(sock: socket.socket) -> bytes:
    """What the socket holds now (every send had completed)."""
    got = b""
    sock.setblocking(False)
    with contextlib.suppress(BlockingIOError):
        while part := sock.recv(65536):
            got += part
    return got


def _unchunk(raw: bytes) -> bytes:
    """The bytes an HTTP/1.1 chunked body carries, its chunks' frames taken off."""
    out, i = b"", 0
    while i < len(raw):
        j = raw.index(b"\r\n", i)
        size = int(raw[i:j], 16)
        out += raw[j + 2:j + 2 + size]
        i = j + 2 + size + 2
    return out


def test_a_fan_out_behind_sends_the_waiting_messages_together_in_order() -> None:
    """Messages queued while a fan-out runs reach each viewer in one write, the same
    bytes in the same order; a viewer that joined in between gets only its own."""
    n = 2 * fanout.FANOUT_SLICE + 3
    sent: list[tuple[int, int]] = []
    msgs = [b"id: %d\ndata: {\"seq\": %d}\n\n" % (k, k) for k in range(1, 6)]

    async def body() -> None:
        with _pairs(n + 1) as pairs:
            subs: set[fanout.Subscriber] = set()
            for a, _ in pairs[:n]:
                sub = fanout.Subscriber()
                sub.wire = _Direct(a.fileno())  # type: ignore[assignment]
                subs.add(sub)
            outbox = fanout.Outbox()
            outbox.send(msgs[0], subs)  # its first slice goes at once, the rest waits
            outbox.send(msgs[1], subs)
            outbox.send(msgs[2], subs)
            late = fanout.Subscriber()
            late.wire = _Direct(pairs[n][0].fileno())  # type: ignore[assignment]
            everyone = {*subs, late}
            outbox.send(msgs[3], everyone)
            outbox.send(msgs[4], everyone)
            while outbox:
                await asyncio.sleep(0)
            whole = b"".join(msgs)
            for _, b in pairs[:n]:
                assert _unchunk(_drain(b)) == whole
            last = b"".join(msgs[3:])
            assert _unchunk(_drain(pairs[n][1])) == last

    with unittest.mock.patch.object(fanout, "send_each", _recording(sent)):
        asyncio.run(body())
    sizes = [size for _, size in sent]
    # the first message in three slices; the second and third together in three; the
    # fourth and fifth (one more viewer) together in three
    assert len(sent) == 9, sent
    framed = [len(fanout.chunk(m)) for m in (msgs[0], msgs[1] + msgs[2], msgs[3] + msgs[4])]
    assert sizes == [framed[0]] * 3 + [framed[1]] * 3 + [framed[2]] * 3
    assert sum(k for k, _ in sent) == 3 * n + 1


def test_a_queue_gets_the_joined_messages_one_an_item_and_a_wire_counts_each() -> None:
    """An in-process subscriber's queue keeps one message an item; a wire falling behind
    counts every message of a joined write against its limit."""
    n = fanout.FANOUT_SLICE + 1
    counted: list[int] = []

    class Paused:
        fd = -1
        fast = None

        def write(self, framed: bytes, messages: int = 1) -> bool:
            counted.append(messages)
            return True

    async def body() -> list[bytes]:
        subs: set[fanout.Subscriber] = set()
        for _ in range(n - 1):
            sub = fanout.Subscriber()
            sub.wire = Paused()  # type: ignore[assignment]
            subs.add(sub)
        queued = fanout.Subscriber()
        subs.add(queued)
        outbox = fanout.Outbox()
        for k in range(4):
            outbox.send(b"m%d\n\n" % k, subs)
        while outbox:
            await asyncio.sleep(0)
        return queued.queued()

    items = asyncio.run(body())
    assert items == [b"m0\n\n", b"m1\n\n", b"m2\n\n", b"m3\n\n"]
    assert sum(counted) == 4 * (n - 1) and 3 in counted


def test_joined_messages_stay_within_their_bounds() -> None:
    """At most ``COALESCE_MESSAGES`` messages and ``COALESCE_BYTES`` bytes go together,
    and never across a change of viewers."""
    subs, others = [fanout.Subscriber()], [fanout.Subscriber()]
    outbox = fanout.Outbox()
    big = b"x" * (fanout.COALESCE_BYTES // 3)
    for data, who in [(b"a", subs), (big, subs), (big, subs), (big, subs),
                      *[(b"s", subs)] * (2 * fanout.COALESCE_MESSAGES), (b"o", others)]:
        outbox.queue.append((data, who, 0.0, ()))
    joined = []
    while outbox.queue:
        msg, parts = outbox._coalesce()
        joined.append((len(msg), len(parts) or 1))
        assert msg == b"".join(parts) or not parts
        outbox.queue.popleft()
    assert all(size <= fanout.COALESCE_BYTES for size, _ in joined)
    assert all(k <= fanout.COALESCE_MESSAGES for _, k in joined)
    assert sum(k for _, k in joined) == 5 + 2 * fanout.COALESCE_MESSAGES
    assert joined[-1] == (1, 1)  # another crowd's message goes alone
