"""An edge: the public plane on any machine, fed by NATS JetStream alone (``chukker edge``).

No web framework here: :mod:`chukker.edge.replica` keeps the local store; the
command and its read-only doors are in :mod:`chukker.web.edge`.
"""

from chukker.edge.replica import LoopNotifier, Replica

__all__ = ["LoopNotifier", "Replica"]
