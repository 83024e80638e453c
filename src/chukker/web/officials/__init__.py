"""The officials' pages: what a timekeeper, the committee or the organiser uses.

``console`` (the match console, the undo's question, archiving, the "match created"
page), ``new_match`` (the New match form), ``arena`` (the tournaments' arena consoles
and the committee's and organiser's tournament doors) and ``help`` (the console's key
card). Each has a ``router`` the app mounts (``web/app.py``)."""
