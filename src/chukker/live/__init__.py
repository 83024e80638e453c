"""The live service, with no web framework: the match cache, the server's clock and
horn scheduler, the subscribers and the fan-out, and command handling (verify,
store, apply, publish).

The web adapters (``chukker.web.api``) and the arena feeds drive it; tests drive it
with a virtual clock and no HTTP. Modules:

* :mod:`chukker.live.service`: :class:`LiveService` (matches, commands, reports, horns)
  and the :class:`Listener` interface of non-HTTP adapters;
* :mod:`chukker.live.clock`: :class:`Clock`, the server's clock;
* :mod:`chukker.live.fanout`: subscribers, SSE encoding, merge patches, the outbox;
* :mod:`chukker.live.errors`: :class:`ServiceError` (and :class:`EventRefused`,
  :class:`EngineFailure`), :class:`Quarantined`, :class:`Role`: codes and params, never
  an HTTP status (the web maps codes to statuses: ``chukker.web.errors``).
"""

from __future__ import annotations

from chukker.live.clock import Clock
from chukker.live.errors import EngineFailure, EventRefused, Quarantined, Role, ServiceError
from chukker.live.fanout import Subscriber, merge_diff, sse
from chukker.live.service import (
    Accepted,
    Created,
    Listener,
    LiveMatch,
    LiveService,
    WorkerRole,
    hash_token,
    new_match_id,
)

__all__ = [
    "Accepted",
    "Clock",
    "Created",
    "EngineFailure",
    "EventRefused",
    "Listener",
    "LiveMatch",
    "LiveService",
    "Quarantined",
    "Role",
    "ServiceError",
    "Subscriber",
    "WorkerRole",
    "hash_token",
    "merge_diff",
    "new_match_id",
    "sse",
]
