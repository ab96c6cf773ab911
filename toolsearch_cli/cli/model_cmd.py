"""``toolsearch model``: get an embedding model once (``pull``), and ``list``, ``show``, ``rm`` it.

Models live in the Hugging Face Hub client's own cache; once pulled, ``--embed-model OWNER/NAME``
finds them there without any network (searching never downloads).

Each command: its arguments -> :class:`~toolsearch_cli.search.hub.ModelSettings` -> one function
of :mod:`toolsearch_cli.search.hub` -> its result as text, or JSON from the result's ``to_dict()``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from ..printable import json_visible
from .options import OutputFormat, check_format
from .render import Col, console, data, error_console, render_table

if TYPE_CHECKING:
    from ..search.hub import ModelListing, PulledModel

app = typer.Typer(
    help="Embedding models for the hybrid and embedding rankers: pull once from the Hugging Face Hub, then offline.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

NAME_ARGUMENT = typer.Argument(..., help="A Hub model id, e.g. sentence-transformers/all-MiniLM-L6-v2.", metavar="NAME")


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def _prompt(text: str) -> str:
    return json.dumps(text, ensure_ascii=False) if text else "none"


def _echo_json(document: Any) -> None:
    typer.echo(json_visible(json.dumps(document, ensure_ascii=False, indent=2)))


def _describe(info: PulledModel) -> list[tuple[str, str]]:
    return [
        ("model", info.name),
        ("revision", info.revision[:12]),
        ("folder", str(info.folder)),
        ("size", _size(info.size)),
        ("dimensions", str(info.dimensions) if info.dimensions else "unchecked"),
        ("pooling", "+".join(info.pooling) + ("" if info.normalize else ", not normalised (dot product)")),
        ("query prompt", _prompt(info.query_prefix)),
        ("document prompt", _prompt(info.document_prefix)),
        ("max tokens", str(info.max_tokens)),
        ("config from", ", ".join(info.sources) or "defaults (no sentence-transformers files)"),
        ("files", ", ".join(info.files)),
    ]


def _print(info: PulledModel, output_format: str) -> None:
    if output_format == "json":
        _echo_json(info.to_dict())
        return
    out = console()
    for key, value in _describe(info):
        out.print(data(f"{key + ':':<17}") + data(value))


@app.command("pull")
def pull(
    name: str = NAME_ARGUMENT,
    revision: str | None = typer.Option(
        None, "--revision", help="A branch, tag or commit (default: main).", metavar="REV"
    ),
    output_format: OutputFormat = "table",
) -> None:
    """Fetch a model's ONNX weights, tokenizer and sentence-transformers config into the Hugging Face
    cache (honours HF_ENDPOINT, HF_HUB_OFFLINE, HF_HUB_CACHE/HF_HOME, HF_TOKEN) and check that it runs."""
    from ..search.hub import ModelSettings, pull_model
    from .render import warn

    check_format(output_format)
    info = pull_model(ModelSettings(name, revision), warn=warn)
    _print(info, output_format)
    if output_format != "json":
        error_console().print(data(f"ready: --embed-model {info.name} (offline from now on)"))


@app.command("list")
def list_command(output_format: OutputFormat = "table") -> None:
    """The pulled models toolsearch can run (an ONNX export and a tokenizer in the Hugging Face cache)."""
    from ..search.hub import list_models

    check_format(output_format)
    listing = list_models()
    if output_format == "json":
        _echo_json(listing.to_dict()["models"])  # an array, as it always was
        return
    _render_listing(listing)


def _render_listing(listing: ModelListing) -> None:
    if not listing.models:
        error_console().print(data(f"no models in {listing.cache}; get one with `toolsearch model pull NAME`"))
        return
    columns = [Col("model", "name"), Col("revision", "name"), Col("size", "number", justify="right"),
               Col("pooling", "name"), Col("query prompt", "text")]  # fmt: skip
    rows = [
        [m.name, m.revision[:12], _size(m.size), "+".join(m.pooling), _prompt(m.query_prefix)] for m in listing.models
    ]
    render_table(console(), columns, rows)


@app.command("show")
def show(name: str = NAME_ARGUMENT, output_format: OutputFormat = "table") -> None:
    """A pulled model: its files, pooling, prompts, and its vector size (loaded and run to check it)."""
    from ..search.hub import ModelSettings, show_model

    check_format(output_format)
    _print(show_model(ModelSettings(name)), output_format)


@app.command("rm")
def remove(name: str = NAME_ARGUMENT, output_format: OutputFormat = "table") -> None:
    """Delete a pulled model from the Hugging Face cache (every revision of it)."""
    from ..search.hub import ModelSettings, remove_model

    check_format(output_format)
    removed = remove_model(ModelSettings(name))
    if output_format == "json":
        _echo_json(removed.to_dict())
        return
    error_console().print(data(f"removed {removed.name} ({_size(removed.freed)} freed)"))
