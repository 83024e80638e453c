"""The arena's hardware and broadcast: MQTT topics, horn relays, the terminal board,
and the flat record of the broadcast data feeds.

An adapter on the live service like ``web/`` (and importing no web framework):
:class:`~chukker.feeds.mqtt.MqttFeed` is a listener of the live service
(``on_state``, ``on_event``, ``on_horn``) that queues and publishes;
:mod:`~chukker.feeds.payloads` says what every feed carries; ``docs/feeds.md``
tells clubs how to wire relays, boards, vMix, OBS and CasparCG.
"""
