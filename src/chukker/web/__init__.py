"""The live service's web side: ASGI app, pages, live updates, auth.

Public surface: :func:`create_app` (the ASGI app on a store) and, for the
``chukker`` command, :func:`chukker.web.cli.register`.
"""

from __future__ import annotations

from chukker.web.app import create_app

__all__ = ["create_app"]
