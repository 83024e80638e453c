"""``python -m chukker.web`` = ``chukker serve`` (handy when the full CLI is not needed)."""

from __future__ import annotations

import typer

from chukker.web.cli import serve

if __name__ == "__main__":
    typer.run(serve)
