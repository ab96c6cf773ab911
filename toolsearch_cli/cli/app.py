"""The ``toolsearch`` command: global options, sub-commands, and the one place errors are printed."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from .. import __version__
from ..errors import ToolsearchError
from . import catalog_cmd, eval_cmd, lint_cmd, search_cmd, simulate_cmd

app = typer.Typer(
    name="toolsearch",
    help="Search, simulate, lint and evaluate progressive disclosure of large LLM tool catalogs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"toolsearch {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show a traceback for errors."),
) -> None:
    """Search, simulate, lint and evaluate progressive disclosure of large LLM tool catalogs."""


app.command("search")(search_cmd.search)
app.add_typer(catalog_cmd.app, name="catalog")
app.command("simulate")(simulate_cmd.simulate)
app.command("eval")(eval_cmd.eval_command)
app.command("lint")(lint_cmd.lint)
app.command("rule")(lint_cmd.rule)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the app, print a ToolsearchError as one line on stderr and exit 2."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:  # `toolsearch` alone: help, and success
        args = ["--help"]
    # --debug works anywhere before a `--`, also after the sub-command: take it out here
    end = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:end]
    args = [a for a in args[:end] if a != "--debug"] + args[end:]
    try:
        code = app(args=args, prog_name="toolsearch", standalone_mode=False)
    except ToolsearchError as exc:
        if debug:
            import traceback

            from .render import shown

            sys.stderr.write(shown(traceback.format_exc()))  # data in the message stays literal
        _error(str(exc))
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        _error("aborted")
        sys.exit(130)
    except KeyboardInterrupt:
        _error("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)
    except Exception as exc:  # noqa: BLE001
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # the CLI parser's usage errors
            _error(_usage_message(exc))
            sys.exit(2)
        # a bug: still one line unless --debug
        if debug:
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (run again with --debug for a traceback)")
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


def _usage_message(exc: Exception) -> str:
    """A parser error (unknown option, missing argument, bad value) as one line with a help hint."""
    message = " ".join(str(exc.format_message()).split()).rstrip(".")  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", None) or "toolsearch"
    return f"{message} (see '{command} -h')"


def _error(message: str) -> None:
    from rich.text import Text

    from .render import data, error_console

    # literal: messages quote user text such as "toolsearch-cli[mcp]", "parameters[0]" or a name with ESC in it
    error_console().print(Text.assemble(("error:", "bold red"), " ", data(message)))
