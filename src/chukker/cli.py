"""The one ``chukker`` command.

Subcommands live next to their concern and are mounted here. Only the
sub-app named on the command line is imported (the web stack and NumPy are
slow to import), so ``chukker replay`` starts fast; ``from chukker.cli import
app`` gives the whole command.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer

from chukker.record.cli import register as _register_record

_CORE = {"replay", "check", "schema"}

#: Typer sub-apps, mounted as ``chukker NAME ...``: name -> (module with ``app``, help).
#: One line per concern; add yours here.
_SUBAPPS: dict[str, tuple[str, str]] = {
    "rules": ("chukker.rulebook.cli", "The rulebook: import, show, search, diff."),
    "plays": ("chukker.plays.cli", "Play diagrams and candidate fouls."),
    "quiz": ("chukker.education.cli", "Rules tests and the question bank: take, check."),
    "tournament": ("chukker.tournament.cli", "Tournaments: register, schedule, standings."),
    "season": ("chukker.tournament.season_cli", "A club's season: every match, as CSV."),
    "whistle": ("chukker.whistle.cli", "The umpire's whistle: calibrate, detect blasts in WAV."),
}

#: Sub-apps that get a command from ``chukker.web.cli`` (the part itself knows nothing of
#: the web): ``chukker plays review``.
_WEB_COMMANDS = {"plays"}

#: Top-level commands registered by a module's ``register(app)``: command -> module.
#: A module may register several commands; list each of them here.
_REGISTERED: dict[str, str] = {
    "serve": "chukker.web.cli",
    "edge": "chukker.web.edge",
    "organiser-token": "chukker.web.organiser_cli",
    "config": "chukker.ops_cli",
    "backup": "chukker.ops_cli",
    "export": "chukker.ops_cli",
    "import": "chukker.ops_cli",
    "examples": "chukker.ops_cli",
    "board": "chukker.feeds.board",
}


def build_app(argv: list[str] | None = None) -> typer.Typer:
    """The ``chukker`` Typer app, with the sub-apps ``argv`` needs (all if ``None``)."""
    app = typer.Typer(
        name="chukker",
        help="USPA arena polo: match engine, live scoreboard, rulebook and plays.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    _register_record(app)
    wanted = None
    if argv is not None:
        wanted = next((a for a in argv if not a.startswith("-")), None)
        if wanted in _CORE:
            return app
        if wanted not in _SUBAPPS and wanted not in _REGISTERED:
            wanted = None  # no command or an unknown one: mount all, so help lists them
    for name, (module, help_text) in _SUBAPPS.items():
        if wanted in (None, name):
            sub = importlib.import_module(module).app
            if name in _WEB_COMMANDS:  # commands of a part that serve its pages
                importlib.import_module("chukker.web.cli").register_plays(sub)
            app.add_typer(sub, name=name, help=help_text)
    registered: set[str] = set()
    for command, module in _REGISTERED.items():
        if wanted in (None, command) and module not in registered:
            importlib.import_module(module).register(app)
            registered.add(module)
    return app


def __getattr__(name: str) -> Any:
    if name == "app":
        return build_app(None)
    raise AttributeError(name)


def main() -> None:
    """Entry point: never a traceback; an unexpected error is one line and exit 70."""
    app = build_app(sys.argv[1:])
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:  # noqa: BLE001 - pragma: no cover - a bug; say so in one line
        sys.stderr.write(f"chukker: internal error: {type(e).__name__}: {e}\n")
        sys.exit(70)


if __name__ == "__main__":  # pragma: no cover
    main()
