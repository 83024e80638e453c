"""What the officials' pages (``web/officials``) and the public's (``web/public``) both
render: the template environment and its helpers (``render``), a match's live context
(``live``), the score sheet's tables (``sheet``), a tournament's live part and its
stream (``tournament_view``) and the API's offline documentation (``apidocs``)."""
