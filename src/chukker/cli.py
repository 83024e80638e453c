"""The one ``chukker`` command.

Subcommands live next to their concern and are mounted here; heavy
imports (the web stack, NumPy) happen only inside the subcommand that
needs them, so ``chukker replay`` starts fast.
"""

from __future__ import annotations

import typer

from chukker.record.cli import register as _register_record

app = typer.Typer(
    name="chukker",
    help="USPA arena polo: match engine, live scoreboard, rulebook and plays.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

_register_record(app)


def _mount_optional() -> None:
    """Mount the sub-apps of the other concerns (rules, plays, serve)."""
    try:
        from chukker.rules.cli import app as rules_app
    except ImportError:  # pragma: no cover - concern not built yet
        pass
    else:
        app.add_typer(rules_app, name="rules", help="The rulebook: import, show, search, diff.")
    try:
        from chukker.plays.cli import app as plays_app
    except ImportError:  # pragma: no cover
        pass
    else:
        app.add_typer(plays_app, name="plays", help="Play diagrams and candidate fouls.")
    try:
        from chukker.web.cli import register as register_web
    except ImportError:  # pragma: no cover
        pass
    else:
        register_web(app)


_mount_optional()


def main() -> None:
    """Entry point: never a traceback; an unexpected error is one line and exit 70."""
    import sys

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
