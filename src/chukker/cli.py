"""The one ``chukker`` command.

Subcommands live next to their concern and are mounted here. Only the
sub-app named on the command line is imported (the web stack and NumPy are
slow to import), so ``chukker replay`` starts fast; ``from chukker.cli import
app`` gives the whole command.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from chukker.record.cli import register as _register_record

_CORE = {"replay", "check", "schema"}
_MOUNTED = {"rules", "plays", "serve"}


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
        if wanted not in _MOUNTED:
            wanted = None  # no command or an unknown one: mount all, so help lists them
    if wanted in (None, "rules"):
        try:
            from chukker.rulebook.cli import app as rules_app
        except ImportError:  # pragma: no cover - concern not built yet
            pass
        else:
            app.add_typer(rules_app, name="rules", help="The rulebook: import, show, search, diff.")
    if wanted in (None, "plays"):
        try:
            from chukker.plays.cli import app as plays_app
        except ImportError:  # pragma: no cover
            pass
        else:
            app.add_typer(plays_app, name="plays", help="Play diagrams and candidate fouls.")
    if wanted in (None, "serve"):
        try:
            from chukker.web.cli import register as register_web
        except ImportError:  # pragma: no cover
            pass
        else:
            register_web(app)
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
    except Exception as e:  # pragma: no cover - a bug; say so in one line
        sys.stderr.write(f"chukker: internal error: {type(e).__name__}: {e}\n")
        sys.exit(70)


if __name__ == "__main__":  # pragma: no cover
    main()
