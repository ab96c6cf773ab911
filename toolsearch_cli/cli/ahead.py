"""A ``search`` request embedded while the command line interface loads.

Most of a cached ``toolsearch search`` is loading the CLI itself (typer, rich, the commands), on
one core. A new request for a dense ranker (``--ranker hybrid``) needs a model's session made and
run, which onnxruntime does without Python's lock: started first, it overlaps that loading on a
second core. So the entry point (:func:`main`) reads the few things it needs from the command line
itself (the sub-command, ``--ranker``, the request and the ``--embed-*`` options) and runs the rest
inside :func:`~toolsearch_cli.search.hybrid.embedded_ahead`.

Nothing here decides anything the command's own parser decides: a command line this reading does
not follow (another sub-command, two words where the request should be, an option it does not
know), an endpoint model or a bad value start nothing, and the search makes its vectors as it
always did; a request read wrongly only costs the work done for it. Nothing heavy is imported here.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

#: The options of ``search`` (and the global loading option it accepts after itself) that take a
#: value; every other option is a flag. tests/cli/test_search_ahead.py checks this against the parser.
VALUE_OPTIONS = frozenset(
    {
        "--catalog",
        "-c",
        "--category",
        "--max-results",
        "-n",
        "--ranker",
        "-r",
        "--context",
        "--format",
        "-f",
        "--catalog-format",
        "--embed-model",
        "--embed-base-url",
        "--embed-api-key-env",
        "--embed-timeout",
        "--embed-query-prefix",
        "--embed-document-prefix",
        "--live-ttl",
    }
)
#: The options whose value changes which model embeds, as :class:`~toolsearch_cli.search.embed.EmbedSettings` fields.
_EMBED_FIELDS = {
    "--embed-model": "model",
    "--embed-base-url": "base_url",
    "--embed-query-prefix": "query_prefix",
    "--embed-document-prefix": "document_prefix",
    "--embed-timeout": "timeout",
}


def read_search(args: Sequence[str]) -> tuple[str, str, dict[str, Any]] | None:
    """``(ranker, request, --embed-* values)`` of a ``search`` command line, or ``None`` when it is
    not one or not in a form read here (the command's parser then has it alone)."""
    end = list(args).index("--") if "--" in args else len(args)
    args = [a for a in args[:end] if a != "--debug"] + list(args[end:])  # as the app takes it out
    if not args or args[0] != "search":
        return None
    values: dict[str, Any] = {}
    words: list[str] = []
    rest = args[1:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == "--":
            words += rest[i + 1 :]
            break
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
            if name not in VALUE_OPTIONS:
                return None
            values[name] = value
        elif arg in VALUE_OPTIONS:
            if i + 1 >= len(rest):
                return None
            values[arg] = rest[i + 1]
            i += 1
        elif arg.startswith("-") and arg != "-":
            if not arg.startswith("--") and len(arg) > 2:
                return None  # -n5, -ew...: not read here
            values[arg] = True
        else:
            words.append(arg)
        i += 1
    if len(words) != 1:
        return None
    ranker = values.get("--ranker", values.get("-r", "default"))
    embed = {name: value for name, value in values.items() if name.startswith("--embed-")}
    return str(ranker), words[0], embed


def _settings(embed: dict[str, Any]) -> Any:
    """The settings ``apply_embed_options`` will make of these options and the environment."""
    from dataclasses import replace

    from ..search.embed import check_timeout, settings_from_env

    changes: dict[str, Any] = {}
    for option, name in _EMBED_FIELDS.items():
        value = embed.get(option)
        if isinstance(value, str):
            changes[name] = check_timeout(value, option) if name == "timeout" else value
    if embed.get("--embed-multilingual") is True:
        changes["multilingual"] = True
    if "model" in changes:
        changes["model"] = changes["model"].strip() or None
    return replace(settings_from_env(), **changes)


@contextlib.contextmanager
def search_ahead(args: Sequence[str]) -> Iterator[None]:
    """Within, a ``search`` command line's request is embedded in a background thread (when it
    is one for a dense ranker with a local model); leaving waits for the thread."""
    read = read_search(args)
    ranker: Any = None
    if read is not None:
        try:
            from ..search import RANKER_BY_NAME

            name, query, embed = read
            dense = RANKER_BY_NAME.get(name)
            if getattr(dense, "needs_embeddings", False):
                ranker = dense.with_embed(_settings(embed))  # type: ignore[union-attr]
        except Exception:  # noqa: BLE001 - a bad value: the command's own checks say it
            ranker = None
    if ranker is None:
        yield
        return
    from ..search.embed import reset_embed_cost
    from ..search.hybrid import embedded_ahead, searches_kept_on_disk

    reset_embed_cost()  # what the search reports embedding cost starts here (it does not reset it again)
    with searches_kept_on_disk(), embedded_ahead(ranker, query):
        yield


def main() -> None:
    """The ``toolsearch`` command: :func:`toolsearch_cli.cli.app.main`, a search's request embedded ahead."""
    with search_ahead(sys.argv[1:]):
        from .app import main as run

        run()
