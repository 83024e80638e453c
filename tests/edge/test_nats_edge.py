"""Issue 35, item 4: the officials publish to NATS JetStream, edges serve the crowd.

Each test has a stream of its own on a ``nats-server -js`` the module started (see
conftest); the fault tests stop it, restart it, or kill an edge with -9.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from chukker.config import NatsSettings
from chukker.feeds import nats as natsfeed

from .conftest import (
    Match,
    NatsServer,
    edge_app,
    edge_process,
    free_port,
    listening,
    officials,
    wait_for,
)

GOAL = {"type": "goal", "team": "A", "player": 2}


def seq_of(c: httpx.Client, match_id: str) -> int:
    r = c.get(f"/api/matches/{match_id}")
    return int(r.json()["seq"]) if r.status_code == 200 else -1


def test_clause_4_edge_serves_the_api_reads_with_the_officials_seq(
        tmp_path: Path, nats_settings: NatsSettings) -> None:
    with officials(tmp_path, nats_settings) as off, off.client() as oc, \
            edge_app(tmp_path, nats_settings) as edge, edge.client() as ec:
        m = Match(oc)
        assert m.post(oc, {"type": "bowl_in"}).status_code == 201
        for _ in range(3):
            assert m.post(oc, GOAL).status_code == 201
        wait_for(lambda: seq_of(ec, m.id) == 4, "the edge to have 4 events")
        mine, theirs = oc.get(f"/api/matches/{m.id}").json(), ec.get(f"/api/matches/{m.id}")
        assert theirs.headers["x-chukker-edge"] in ("current", "behind")
        assert theirs.json()["score"] == mine["score"]
        page = ec.get(f"/m/{m.id}")
        assert page.status_code == 200
        wait_for(lambda: ec.get("/readyz").json()["status"] == "ok", "the edge to be current")
