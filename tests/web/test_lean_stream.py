"""Issue 43: a stream written to directly waits on one future, done when its connection
is lost; a request pipelined behind the stream does not hide that loss."""

from __future__ import annotations

import socket
import time
from typing import Any


def eventually(check: Any, seconds: float = 20.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.02)
    return False


def _stream(port: int, match_id: str) -> socket.socket:
    """A viewer's raw connection asking for the match's stream."""
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(10)
    s.sendall(f"GET /api/matches/{match_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return s


def _read_until(s: socket.socket, marker: bytes, got: bytes = b"") -> bytes:
    """``got`` and what ``s`` sends after it, until ``marker`` is in it (the headers and
    the messages may come apart)."""
    while marker not in got:
        part = s.recv(65536)
        assert part, got
        got += part
    return got


def test_a_stream_with_a_request_pipelined_behind_it_still_ends_and_frees_its_slot_when_the_viewer_goes(  # noqa: E501
        live_server: Any, make_match: Any) -> None:
    caps = live_server.app.state.streams
    svc = live_server.app.state.service
    with live_server.client() as c:
        m = make_match(c)
    s = _stream(live_server.port, m.id)
    assert b"retry:" in s.recv(65536)
    assert eventually(lambda: all(sub.wire is not None
                                  for sub in svc._matches[m.id].subscribers))
    s.sendall(b"GET /api/time HTTP/1.1\r\nHost: x\r\n\r\n")  # pipelined behind the stream
    time.sleep(0.2)
    assert caps.open == 1 and len(svc._matches[m.id].subscribers) == 1
    s.close()
    # uvicorn stops reading a connection while a request waits behind another, so the
    # viewer's going is seen when a write finds the connection gone: the next goals'
    with live_server.client() as c:
        for i in range(6):
            c.post(f"/api/matches/{m.id}/events", headers=m.tk,
                   json={"command_id": f"p{i}", "event": {"type": "bowl_in" if i % 2 == 0
                                                          else "whistle"}})
            time.sleep(0.05)
    assert eventually(lambda: caps.open == 0 and not svc._matches[m.id].subscribers), (
        caps.open, len(svc._matches[m.id].subscribers))


def test_an_idle_viewer_written_to_directly_waits_on_one_future_and_holds_no_queue(
        live_server: Any, make_match: Any) -> None:
    svc = live_server.app.state.service
    with live_server.client() as c:
        m = make_match(c)
    s = _stream(live_server.port, m.id)
    try:
        _read_until(s, b"retry:")
        assert eventually(lambda: all(sub.wire is not None and sub.waiter is not None
                                      for sub in svc._matches[m.id].subscribers))
        (sub,) = svc._matches[m.id].subscribers
        assert sub._queue is None and sub.wire.fast is not None
    finally:
        s.close()


def test_a_served_stream_gets_its_messages_by_direct_send_once_its_headers_are_out(
        live_server: Any, make_match: Any) -> None:
    """Issue 43: the fan-out sends to the socket's descriptor (``fanout.send_each``), and
    the viewer reads a well-formed chunked stream: the headers, then each message."""
    svc = live_server.app.state.service
    with live_server.client() as c:
        m = make_match(c)
    s = _stream(live_server.port, m.id)
    try:
        got = _read_until(s, b"retry:")
        assert eventually(lambda: all(sub.wire is not None and sub.wire.fd >= 0
                                      for sub in svc._matches[m.id].subscribers))
        with live_server.client() as c:
            c.post(f"/api/matches/{m.id}/events", headers=m.tk,
                   json={"command_id": "d1", "event": {"type": "bowl_in"}})
        got = _read_until(s, b'"type":"bowl_in"', got)
        head, _, body = got.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head
        while body:  # every byte after the headers is whole chunks, none torn
            size, _, rest = body.partition(b"\r\n")
            n = int(size, 16)
            if len(rest) < n + 2:  # the last one not all read yet
                break
            assert rest[n:n + 2] == b"\r\n", body[:80]
            body = rest[n + 2:]
        (sub,) = svc._matches[m.id].subscribers
        assert sub.wire.fd >= 0
    finally:
        s.close()
