"""The trusted proxies of the app a request reaches, typed.

What each layer that needs a client's address reads (the page cache, the guard,
``security.client_address``): the app's state is a :class:`Proxied`, whose proxies are
its ``trusted_proxies`` setting; an app not made by ``create_app`` (a router mounted on
a bare app, as some tests do) trusts no proxy. This module imports nothing of the app
(``web/state.py`` imports those layers), so that each of them may import it.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.datastructures import State

from chukker.ops.proxy import TrustedProxies

__all__ = ["NO_PROXIES", "Proxied", "proxies_of"]

#: what an app not made by ``create_app`` trusts: no proxy (the headers are never read)
NO_PROXIES = TrustedProxies()


class Proxied(State):
    """The base of an app's state (``chukker.web.state.AppState``): its trusted proxies."""

    @property
    def trusted_proxies(self) -> TrustedProxies:
        raise NotImplementedError


def proxies_of(app: object) -> TrustedProxies:
    """The trusted proxies of ``app`` (:data:`NO_PROXIES` for an app not of ``create_app``).

    >>> proxies_of(Starlette()) is NO_PROXIES and proxies_of(None) is NO_PROXIES
    True
    """
    state = app.state if isinstance(app, Starlette) else None
    return state.trusted_proxies if isinstance(state, Proxied) else NO_PROXIES
