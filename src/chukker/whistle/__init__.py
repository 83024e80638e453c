"""The umpire's whistle heard in arena sound (issue 31): a detector defined once.

``detector`` (NumPy) and the console's ``static/whistle-worklet.js`` run the same steps
with the same numbers (``params.json``); ``synthetic`` makes the test audio; ``cli`` is
``chukker whistle calibrate|detect``; ``wav`` reads a WAV file with its limits.
"""

from __future__ import annotations

from chukker.whistle.detector import Blast, Profile, calibrate, detect, params

__all__ = ["Blast", "Profile", "calibrate", "detect", "params"]
