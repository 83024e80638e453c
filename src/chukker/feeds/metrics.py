"""Prometheus metrics of the MQTT feed, on the server's registry
(:data:`chukker.ops.metrics.REGISTRY`).

========================================  =========  ====================================
name                                      type       what
========================================  =========  ====================================
chukker_mqtt_connected                    gauge      1 while connected to the broker
chukker_mqtt_queue_depth                  gauge      messages waiting to be published
chukker_mqtt_published_total              counter    messages the broker acknowledged, by kind
chukker_mqtt_dropped_total                counter    messages given up, by kind and reason
chukker_mqtt_horn_to_relay_seconds        histogram  horn instant to the broker's ack of
                                                     the relay's command
chukker_mqtt_reconnects_total             counter    connections made after the first
chukker_mqtt_session_taken_over_total     counter    sessions another client took over
========================================  =========  ====================================
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from chukker.ops.metrics import REGISTRY

_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)

# the feeds run in one worker of serve --workers (the horn keeper): its live values only
CONNECTED = Gauge("chukker_mqtt_connected", "1 while the MQTT feed is connected to its broker",
                  registry=REGISTRY, multiprocess_mode="liveall")
QUEUE_DEPTH = Gauge("chukker_mqtt_queue_depth", "MQTT messages waiting to be published",
                    registry=REGISTRY, multiprocess_mode="liveall")
PUBLISHED = Counter("chukker_mqtt_published_total", "MQTT messages acknowledged by the broker",
                    ["kind"], registry=REGISTRY)
DROPPED = Counter("chukker_mqtt_dropped_total", "MQTT messages given up (queue full, too late)",
                  ["kind", "reason"], registry=REGISTRY)
HORN_TO_RELAY = Histogram("chukker_mqtt_horn_to_relay_seconds",
                          "Horn instant to the broker's acknowledgement of the relay command",
                          buckets=_BUCKETS, registry=REGISTRY)
RECONNECTS = Counter("chukker_mqtt_reconnects_total", "MQTT connections after the first",
                     registry=REGISTRY)
TAKEN_OVER = Counter("chukker_mqtt_session_taken_over_total",
                     "MQTT sessions taken over by another client with the server's identifier",
                     registry=REGISTRY)
ALL = (CONNECTED, QUEUE_DEPTH, PUBLISHED, DROPPED, HORN_TO_RELAY, RECONNECTS, TAKEN_OVER)
for _k in ("state", "event", "horn", "relay"):
    PUBLISHED.labels(_k)
