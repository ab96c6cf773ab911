"""The ``toolsearch`` command: global options, sub-commands, and the one place errors are printed."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import typer

from .. import __version__, environment
from ..errors import ToolsearchError
from . import (
    catalog_cmd,
    eval_cmd,
    lint_cmd,
    lock_cmd,
    model_cmd,
    registry_cmd,
    registry_serve_cmd,
    search_cmd,
    serve_cmd,
    simulate_cmd,
)
from .error_line import print_error as _error

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
    typer_context: typer.Context,
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    # --debug is taken out of the arguments by _run (it works after the sub-command too); declared here for -h
    debug: bool = typer.Option(False, "--debug", help="Show a traceback for errors."),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Catalog load warnings (non-standard parameter types, tools that are not functions, "
        "a failing MCP server of several) are errors.",
    ),
    live_ttl: str | None = typer.Option(
        None,
        "--live-ttl",
        help="Reuse live MCP servers' tool lists for this long (90, 10m, 2h; "
        f"default ${environment.LIVE_TTL}, else off).",
        metavar="DURATION",
    ),
    refresh: bool = typer.Option(False, "--refresh", help="Ask live MCP servers again even when cached."),
    sanitize_names: bool = typer.Option(
        False,
        "--sanitize-names",
        help="Rename live MCP servers' tools to provider-valid names ([A-Za-z0-9_-], at most 64 characters).",
    ),
) -> None:
    """Search, simulate, lint and evaluate progressive disclosure of large LLM tool catalogs."""
    from ..catalog.lenient import loading
    from .load_report import load_settings

    # every load of the command runs inside this block; it ends with the command (the root context)
    chosen = load_settings(strict=strict, live_ttl=live_ttl, refresh=refresh, sanitize_names=sanitize_names)
    typer_context.with_resource(loading(chosen))


app.command("search")(search_cmd.search)
app.add_typer(catalog_cmd.app, name="catalog")
app.command("simulate")(simulate_cmd.simulate)
app.command("eval")(eval_cmd.eval_command)
app.command("lint")(lint_cmd.lint)
app.command("rule")(lint_cmd.rule)
app.add_typer(model_cmd.app, name="model")
app.command("serve")(serve_cmd.serve)
app.command("lock")(lock_cmd.lock)
registry_cmd.app.command("serve")(registry_serve_cmd.serve)
registry_cmd.app.add_typer(registry_serve_cmd.token_app, name="token")
app.add_typer(registry_cmd.app, name="registry")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the app, print a ToolsearchError as one line on stderr and exit 2.

    Everything written to stdout and stderr (tracebacks under --debug included) has registered
    secrets masked; SIGTERM stops the run as Ctrl-C does, so live MCP servers are shut down.
    """
    from ..redaction import forget_all, redacting_streams, register_arguments

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:  # `toolsearch` alone: help, and success
        args = ["--help"]
    forget_all()  # the secrets of this command only
    # a URL's password in any argument, however mistyped, is masked on every path that echoes it
    register_arguments([*args, environment.catalog_sources()])
    with redacting_streams(), _sigterm_as_interrupt() as terminated:
        code = _run(args, terminated)
    if argv is None:
        # The process's own command line: it ends now. The collector's passes at shutdown need
        # not walk what the command loaded (0.3 s CPU of a cached 100,000-tool search); in-process
        # callers (tests) pass argv and keep their collector as it was.
        import gc

        gc.freeze()
    sys.exit(code)


def _run(args: list[str], terminated: list[int]) -> int:
    """Run the app; the exit code (errors printed)."""
    # --debug works anywhere before a `--`, also after the sub-command: take it out here
    end = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:end]
    args = lock_cmd.locked_args(_loading_options_first([a for a in args[:end] if a != "--debug"]) + args[end:])
    try:
        try:
            command = typer.main.get_command(app)
            _placeholders(command)
            code = command.main(args=args, prog_name="toolsearch", standalone_mode=False)
        finally:
            from .load_report import forget_command

            forget_command()
    except ToolsearchError as exc:
        if debug:
            _traceback()
        _error(str(exc))
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        _error("aborted")
        return 130
    except KeyboardInterrupt:
        return _interrupted(terminated)
    except BrokenPipeError:
        sys.stderr.close()
        return 1
    except Exception as exc:  # noqa: BLE001
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # the CLI parser's usage errors
            _error(_usage_message(exc))
            return 2
        # a bug: one line, or with --debug the traceback too; exit 2 either way (1 means a check failed)
        if debug:
            _traceback()
            _error(f"internal error: {type(exc).__name__}: {exc}")
            return 2
        _error(f"internal error: {type(exc).__name__}: {exc} (run again with --debug for a traceback)")
        return 2
    if code == 130:  # the CLI library turns Ctrl-C (and so SIGTERM) into this code, silently
        return _interrupted(terminated)
    return code if isinstance(code, int) else 0


#: Global loading options that no sub-command has: accepted after the sub-command too
#: (``toolsearch search --live-ttl 10m ...``) and moved before it. ``--strict`` is not among them:
#: ``lint`` and ``catalog convert`` have a ``--strict`` of their own.
_LOADING_FLAGS = ("--refresh", "--sanitize-names")
_LOADING_VALUES = ("--live-ttl",)


def _loading_options_first(args: list[str]) -> list[str]:
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _LOADING_FLAGS or arg.startswith(tuple(f"{o}=" for o in _LOADING_VALUES)):
            front.append(arg)
        elif arg in _LOADING_VALUES and i + 1 < len(args):
            front += [arg, args[i + 1]]
            i += 1
        else:
            rest.append(arg)
        i += 1
    return front + rest


def _traceback() -> None:
    """--debug: the traceback of the exception being handled, on stderr (data in it stays literal;
    secrets are masked by the stream)."""
    import traceback

    from .render import shown

    sys.stderr.write(shown(traceback.format_exc()))


def _interrupted(terminated: list[int]) -> int:
    """Ctrl-C: "interrupted", exit 130; SIGTERM: "terminated", exit 143; SIGHUP (the terminal
    closed): "hung up", exit 129 (128 + the signal number)."""
    import signal

    if terminated and terminated[0] == getattr(signal, "SIGHUP", None):
        _error("hung up")
        return 129
    if terminated:
        _error("terminated")
        return 143
    _error("interrupted")
    return 130


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[list[int]]:
    """While inside, SIGTERM (a CI timeout, ``kill``) and SIGHUP (the terminal or the SSH session
    closed) do what Ctrl-C does, through the same handler (so a running event loop cancels its
    tasks and live MCP servers are stopped with their process groups); the yielded list gets the
    signal's number once it came. SIGHUP is taken only where it would have killed the process:
    under ``nohup`` (ignored) it stays ignored."""
    import signal

    terminated: list[int] = []
    wanted = [signal.SIGTERM] if hasattr(signal, "SIGTERM") else []
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is not None and signal.getsignal(hangup) is signal.SIG_DFL:
        wanted.append(hangup)

    def on_signal(signum: int, frame: Any) -> None:
        terminated.append(signum)
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    previous: dict[signal.Signals, Any] = {}
    try:
        for signum in wanted:
            previous[signum] = signal.signal(signum, on_signal)
    except ValueError:  # not the main thread: leave signals alone
        pass
    try:
        yield terminated
    finally:
        for taken, handler in previous.items():
            signal.signal(taken, handler)


_PLACEHOLDER = {"str": "TEXT", "string": "TEXT", "int": "N", "integer": "N", "float": "NUMBER", "path": "PATH"}


def _placeholders(command: object) -> None:
    """Options without a metavar get a word for their value in help (TEXT, N, NUMBER), not ``<str>``."""
    for param in getattr(command, "params", []):
        option = getattr(param, "param_type_name", "") == "option" and not getattr(param, "is_flag", False)
        if option and param.metavar is None:
            name = str(getattr(param.type, "name", "value"))
            param.metavar = _PLACEHOLDER.get(name, name.upper())
    for sub in getattr(command, "commands", {}).values():
        _placeholders(sub)


def _usage_message(exc: Exception) -> str:
    """A parser error (unknown option, missing argument, bad value) as one line with a help hint."""
    message = " ".join(str(exc.format_message()).split()).rstrip(".")  # type: ignore[attr-defined]
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", None) or "toolsearch"
    return f"{message} (see '{command} -h')"
