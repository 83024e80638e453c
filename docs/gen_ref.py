"""Reference pages of the documentation site, written at build time (mkdocs-gen-files).

Nothing here is typed twice: the pages come from the code they describe.

* ``reference/cli.md``: the ``chukker`` command, walked from its Typer app (every
  command and sub-command, its arguments and options, their help and defaults);
* ``reference/api.md`` and ``reference/openapi.json``: the HTTP API, from the
  app's OpenAPI document;
* ``reference/settings.md``: every setting of :mod:`chukker.config` (key,
  environment variable, older names, default, what it is);
* ``reference/refusals.md``: every refusal and notice code with its sentence in
  English, Spanish and Italian (:func:`chukker.web.refusals.templates` and the
  ``.po`` catalogues);
* ``guide/keys.md``: the timekeeper's key card (:mod:`chukker.web.keys`), the
  same table the app serves at ``/help/keys``.

Run by ``mkdocs build`` (see ``mkdocs.yml``); ``python docs/gen_ref.py OUT``
writes the same pages into the folder ``OUT`` without MkDocs.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO, Any

import typer

Opener = Callable[[str, str], AbstractContextManager[IO[str]]]


def _cell(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


# ----------------------------------------------------------------------------- CLI


# Typer carries its own copy of Click: commands and parameters are read by what they have


def _is_group(cmd: Any) -> bool:
    return isinstance(getattr(cmd, "commands", None), dict)


def _walk(cmd: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    yield path, cmd
    if _is_group(cmd):
        for name in sorted(cmd.commands):
            sub = cmd.commands[name]
            if not sub.hidden:
                yield from _walk(sub, [*path, name])


def _param_row(p: Any) -> str:
    option = getattr(p, "param_type_name", "") == "option"
    if option:
        names = ", ".join(f"`{o}`" for o in [*p.opts, *p.secondary_opts])
        help_text = p.help or ""
    else:
        names = f"`{(getattr(p, 'metavar', None) or p.name or '').upper()}`"
        help_text = getattr(p, "help", "") or ""
    default = p.default
    no_default = default is None or default == () or callable(default)
    if (option and p.is_flag and not p.secondary_opts) or no_default:
        shown = ""
    elif isinstance(default, bool) and option and p.secondary_opts:
        shown = f"`{p.opts[0] if default else p.secondary_opts[0]}`"
    else:
        shown = f"`{default}`"
    required = " (required)" if p.required else ""
    return f"| {names}{required} | {_cell(help_text)} | {shown} |"


def cli_page() -> str:
    from chukker.cli import build_app

    root = typer.main.get_command(build_app(None))
    out = [
        "# The `chukker` command",
        "",
        "Generated from the command's own definitions (its Typer app) when the site",
        "is built: what `chukker COMMAND --help` says, every command on one page.",
        "",
    ]
    for path, cmd in _walk(root, ["chukker"]):
        if _is_group(cmd) and len(path) > 1:
            out += [f"## `{' '.join(path)}`", "", _cell(cmd.help or ""), ""]
            if not cmd.params or all(p.name == "help" for p in cmd.params):
                continue
        elif _is_group(cmd):
            out += [_cell(cmd.help or ""), ""]
            continue
        else:
            out += [f"### `{' '.join(path)}`" if len(path) > 2 else f"## `{' '.join(path)}`", ""]
            out += [(cmd.help or "").strip(), ""]
        params = [p for p in cmd.params if p.name != "help"]
        if params:
            out += ["| Argument or option | What | Default |", "|---|---|---|"]
            out += [_param_row(p) for p in params]
            out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------- API


def openapi() -> dict[str, Any]:
    from chukker.web import create_app
    from chukker.web.state import state_of

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Path(tmp) / "docs.sqlite3", organiser="docs-build")
        doc: dict[str, Any] = app.openapi()
        state_of(app).service.store.close()
    return doc


def api_page(doc: dict[str, Any]) -> str:
    out = [
        "# HTTP API",
        "",
        "Generated from the server's OpenAPI document when the site is built. A running",
        "server shows the same document at `/docs` (try it there) and `/openapi.json`;",
        "this build's copy: [openapi.json](openapi.json).",
        "",
        f"Version {doc.get('info', {}).get('version', '')}.",
        "",
    ]
    for path in sorted(doc.get("paths", {})):
        for method, op in sorted(doc["paths"][path].items()):
            if not isinstance(op, dict):
                continue
            out += [f"## `{method.upper()} {path}`", ""]
            if op.get("summary"):
                out += [f"**{_cell(op['summary'])}**", ""]
            if op.get("description"):
                out += [op["description"].strip(), ""]
            params = op.get("parameters") or []
            if params:
                out += ["| Parameter | In | Required | What |", "|---|---|---|---|"]
                for p in params:
                    out.append(
                        f"| `{p.get('name')}` | {p.get('in')} | "
                        f"{'yes' if p.get('required') else 'no'} | "
                        f"{_cell(p.get('description', ''))} |"
                    )
                out.append("")
            body = (op.get("requestBody") or {}).get("content") or {}
            for ctype, media in body.items():
                ref = (media.get("schema") or {}).get("$ref", "")
                name = ref.rsplit("/", 1)[-1] if ref else ""
                out += [f"Body: `{ctype}`" + (f", schema `{name}`" if name else ""), ""]
            responses = op.get("responses") or {}
            if responses:
                out += ["| Answer | Means |", "|---|---|"]
                for code in sorted(responses):
                    out.append(f"| {code} | {_cell(responses[code].get('description', ''))} |")
                out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------- settings


def settings_page() -> str:
    from chukker import config

    s = config.load(env={}, file=None)
    out = [
        "# Settings",
        "",
        "Generated from `chukker.config` when the site is built. A setting comes from,",
        "strongest first: the command line, the environment (`CHUKKER_...`), the TOML",
        "file named by `--config` or `CHUKKER_CONFIG`, the default. `chukker config`",
        "prints the settings in force and where each came from; an unknown key or a bad",
        "value stops the server with one line naming it.",
        "",
        "| Key (TOML) | Environment | Default | What |",
        "|---|---|---|---|",
    ]
    for key in config.KEYS:
        value: Any = s
        for part in key.name.split("."):
            value = getattr(value, part, None)
        if key.secret:
            shown = "(secret: none by default)"
        elif value is None or value == "" or value == ():
            shown = ""
        elif isinstance(value, tuple):
            shown = "`" + ", ".join(str(v) for v in value) + "`"
        else:
            shown = f"`{value}`"
        env = f"`{key.env}`" + "".join(f"<br>`{a}`" for a in key.aliases if a != key.env)
        out.append(f"| `{key.name}` | {env} | {shown} | {_cell(key.help)} |")
    out += ["", "An example file (`chukker.toml`):", "", "```toml"]
    out += [
        'database = "chukker.sqlite3"',
        'trusted_proxies = ["127.0.0.1"]',
        "",
        "[server]",
        'host = "127.0.0.1"',
        "port = 8000",
        "",
        "[log]",
        'format = "json"',
        "access = true",
        "",
        "[metrics]",
        "enabled = true",
        "```",
        "",
    ]
    return "\n".join(out)


# ----------------------------------------------------------------------------- refusals


def refusals_page() -> str:
    from chukker.engine.errors import MESSAGES as ENGINE
    from chukker.engine.errors import NOTICES
    from chukker.record.errors import MESSAGES as RECORD
    from chukker.i18n import translations
    from chukker.web.refusals import templates

    all_codes = templates()
    groups: list[tuple[str, list[str]]] = [
        ("The engine refuses an event", sorted(ENGINE)),
        ("The engine's notices (in the report, not refusals)", sorted(NOTICES)),
        ("The record loader refuses a record", sorted(RECORD)),
        (
            "The HTTP API refuses a request",
            sorted(set(all_codes) - set(ENGINE) - set(NOTICES) - set(RECORD)),
        ),
    ]
    es, it = translations("es"), translations("it")
    out = [
        "# Refusal codes",
        "",
        "Generated from the code tables when the site is built. Every refusal a user",
        "sees has a stable `code` (in the API's JSON answer, beside `message`) and",
        "`params`; the sentence is said in the page's language. `{name}` marks a value.",
        "",
    ]
    for title, codes in groups:
        if not codes:
            continue
        out += [f"## {title}", "", "| Code | English | Español | Italiano |", "|---|---|---|---|"]
        for code in codes:
            en = all_codes[code]
            out.append(
                f"| `{code}` | {_cell(en)} | {_cell(es.gettext(en))} | {_cell(it.gettext(en))} |"
            )
        out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------- keys


def keys_page() -> str:
    from chukker.web.keys import card_markdown

    return "\n".join(
        [
            "# The timekeeper's key card",
            "",
            "Print this page (one A4 sheet) and keep it beside the console's keyboard. The",
            "server prints the same card in English, Spanish or Italian at",
            "`/help/keys` (`/help/keys?lang=es`); both come from one table",
            "(`chukker.web.keys`), the one the console's keys are tested against.",
            "",
            card_markdown(),
        ]
    )


# ----------------------------------------------------------------------------- build


def write_all(open_file: Opener) -> None:
    doc = openapi()
    pages = {
        "reference/cli.md": cli_page(),
        "reference/api.md": api_page(doc),
        "reference/settings.md": settings_page(),
        "reference/refusals.md": refusals_page(),
        "guide/keys.md": keys_page(),
    }
    for name, text in pages.items():
        with open_file(name, "w") as f:
            f.write(text)
    with open_file("reference/openapi.json", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)


def _folder_opener(root: Path) -> Opener:
    def opener(name: str, mode: str) -> AbstractContextManager[IO[str]]:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open(mode, encoding="utf-8")

    return opener


if __name__ == "__main__":
    write_all(_folder_opener(Path(sys.argv[1] if len(sys.argv) > 1 else "site-ref")))
elif __name__ == "<run_path>":  # run by mkdocs-gen-files during `mkdocs build`
    import mkdocs_gen_files

    write_all(mkdocs_gen_files.open)
