"""The ASGI side of operations: health and readiness, the metrics route, request observation.

The framework-free parts are in :mod:`chukker.ops`.
"""
