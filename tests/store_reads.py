"""Counting a store's reads of events: the tests that show an event carried by a
notification (a worker's datagram, PostgreSQL's NOTIFY) is applied without reading the
store again."""

from __future__ import annotations

from typing import Any

import pytest


def count_reads(monkeypatch: pytest.MonkeyPatch, store: Any) -> list[Any]:
    """From now on, the arguments of every call of ``store.events``, which still answers."""
    reads: list[Any] = []
    real = store.events

    def counted(*args: Any) -> Any:
        reads.append(args)
        return real(*args)

    monkeypatch.setattr(store, "events", counted)
    return reads
