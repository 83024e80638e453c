"""The public's pages: what spectators, grooms, broadcasters and learners read.

``matches`` (the home page, a match's phone page, big screen, overlay, pony line and
score sheet with its exports), ``tournaments`` (schedules, standings, brackets, team
pages, exports), ``rules`` (the rulebook), ``plays`` (the plays and their review) and
``learn`` (the rules tests). Each has a ``router`` (``rules``: an app) the app mounts."""
