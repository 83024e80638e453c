"""Request size limit, bad-token throttling and CSRF tokens for form posts."""

from __future__ import annotations

import hmac
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY = 64 * 1024


class _TooLarge(HTTPException):
    """Raised from ``receive`` once a streamed body passes the limit (FastAPI re-raises it)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request bodies are limited to {limit} bytes")


async def _send_json(send: Send, status: int, body: Mapping[str, object]) -> None:
    data = json.dumps(body).encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(b"content-type", b"application/json"),
                    (b"content-length", str(len(data)).encode())],
    })
    await send({"type": "http.response.body", "body": data})


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, declared or streamed."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = {"error": "too_large",
                   "message": f"request bodies are limited to {self.limit} bytes"}
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    n = int(v)
                except ValueError:
                    n = self.limit + 1
                if n > self.limit:
                    await _send_json(send, 413, refusal)
                    return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge(self.limit)
            return msg

        async def watched(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await _send_json(send, 413, refusal)


@dataclass
class _Strikes:
    count: int
    last: float


class Throttle:
    """Slow down clients that keep presenting bad tokens.

    After ``free`` bad tokens from one address, each further one waits twice as
    long as the one before (up to ``max_delay`` seconds); after ``block`` the
    address gets 429 until it has been quiet for ``window`` seconds.

    >>> t = Throttle(free=1, block=3)
    >>> [t.fail("ip") for _ in range(3)], t.blocked("ip")
    ([0.0, 0.05, 0.1], True)
    """

    def __init__(self, free: int = 3, block: int = 30, window: float = 600.0,
                 max_delay: float = 2.0) -> None:
        self.free, self.block, self.window, self.max_delay = free, block, window, max_delay
        self._strikes: dict[str, _Strikes] = {}

    def _get(self, key: str) -> _Strikes | None:
        s = self._strikes.get(key)
        if s is not None and time.monotonic() - s.last > self.window:
            del self._strikes[key]
            return None
        return s

    def blocked(self, key: str) -> bool:
        s = self._get(key)
        return s is not None and s.count >= self.block

    def fail(self, key: str) -> float:
        """Count a bad token; return how long to wait before answering."""
        s = self._get(key)
        if s is None:
            if len(self._strikes) > 10_000:
                self._strikes.clear()
            s = self._strikes[key] = _Strikes(0, 0.0)
        s.count += 1
        s.last = time.monotonic()
        over = s.count - self.free
        return 0.0 if over <= 0 else min(self.max_delay, 0.05 * 2 ** (over - 1))


CSRF_COOKIE = "chukker_csrf"


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


def csrf_ok(cookie: str | None, field: str | None) -> bool:
    """Double-submit check: the form's hidden field equals the cookie.

    >>> csrf_ok("abc", "abc"), csrf_ok("abc", "abd"), csrf_ok(None, None)
    (True, False, False)
    """
    if not cookie or not field:
        return False
    return hmac.compare_digest(cookie.encode(), field.encode())
