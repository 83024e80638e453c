"""The pages, one module per part: ``matches`` (the match pages and screens, with ``sheet``),
``rules``, ``plays``, ``tournaments`` and ``learn``. Each has a ``router`` the app mounts."""
