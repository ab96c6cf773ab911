"""``toolsearch model``: get an embedding model once (``pull``), and ``list``, ``show``, ``rm`` it.

Models live in the Hugging Face Hub client's own cache; once pulled, ``--embed-model OWNER/NAME``
finds them there without any network (searching never downloads).
"""

from __future__ import annotations

import json
import os

import typer

from ..printable import json_visible
from .options import FORMAT_OPTION, check_format
from .render import Col, console, data, error_console, render_table

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


def _describe(info) -> list[tuple[str, str]]:  # noqa: ANN001 - a hub.PulledModel
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


def _print(info, output_format: str) -> None:  # noqa: ANN001
    if output_format == "json":
        typer.echo(json_visible(json.dumps(info.to_dict(), ensure_ascii=False, indent=2)))
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
    output_format: str = FORMAT_OPTION,
) -> None:
    """Fetch a model's ONNX weights, tokenizer and sentence-transformers config into the Hugging Face
    cache (honours HF_ENDPOINT, HF_HUB_OFFLINE, HF_HUB_CACHE/HF_HOME, HF_TOKEN) and check that it runs."""
    from ..search.hub import pull_model

    check_format(output_format)
    if os.environ.get("HF_TOKEN", "").strip():
        from ..redaction import clear_text_warning
        from ..search.hub import endpoint

        insecure = clear_text_warning(endpoint(), "$HF_TOKEN")
        if insecure is not None:
            from .render import warn

            warn(insecure)
    info = pull_model(name, revision)
    _print(info, output_format)
    if output_format != "json":
        error_console().print(data(f"ready: --embed-model {info.name} (offline from now on)"))


@app.command("list")
def list_command(output_format: str = FORMAT_OPTION) -> None:
    """The pulled models toolsearch can run (an ONNX export and a tokenizer in the Hugging Face cache)."""
    from ..search.hub import list_models
    from ..search.hub_cache import cache_folder

    check_format(output_format)
    models = list_models()
    if output_format == "json":
        typer.echo(json_visible(json.dumps([m.to_dict() for m in models], ensure_ascii=False, indent=2)))
        return
    if not models:
        error_console().print(data(f"no models in {cache_folder()}; get one with `toolsearch model pull NAME`"))
        return
    columns = [Col("model", "name"), Col("revision", "name"), Col("size", "number", justify="right"),
               Col("pooling", "name"), Col("query prompt", "text")]  # fmt: skip
    rows = [[m.name, m.revision[:12], _size(m.size), "+".join(m.pooling), _prompt(m.query_prefix)] for m in models]
    render_table(console(), columns, rows)


@app.command("show")
def show(name: str = NAME_ARGUMENT, output_format: str = FORMAT_OPTION) -> None:
    """A pulled model: its files, pooling, prompts, and its vector size (loaded and run to check it)."""
    from ..search.hub import show_model

    check_format(output_format)
    _print(show_model(name), output_format)


@app.command("rm")
def remove(name: str = NAME_ARGUMENT) -> None:
    """Delete a pulled model from the Hugging Face cache (every revision of it)."""
    from ..search.hub import remove_model

    freed = remove_model(name)
    error_console().print(data(f"removed {name.strip()} ({_size(freed)} freed)"))
