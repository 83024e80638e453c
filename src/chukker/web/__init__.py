"""The live service's web side: ASGI app, pages, live updates, auth.

Public surface: :func:`create_app` (the ASGI app on a store) and, for the
``chukker`` command, :func:`chukker.web.cli.register`.

``create_app`` is imported when first asked for (PEP 562), so a command that only
registers a web command (``chukker plays inspect`` goes through
:mod:`chukker.web.cli` for ``plays review``) does not import the whole web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chukker.web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from chukker.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
