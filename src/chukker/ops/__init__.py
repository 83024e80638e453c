"""Framework-free operations wiring: metrics (Prometheus), logging and the trusted proxies.

The ASGI side (health, observe) is in :mod:`chukker.web.ops`.
"""
