"""The HTTP API of the live service and its event stream (an adapter of :mod:`chukker.live`)."""
