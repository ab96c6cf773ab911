"""Options shared by several commands."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Annotated, Any

import typer

from .. import environment
from ..catalog import ENV_VAR
from ..catalog.formats import FORMATS as CATALOG_FORMATS
from ..search.embed_settings import EmbedSettings, check_prefix, check_timeout, check_weight

CATALOG_HELP = (
    f"Catalog source: a YAML or JSON file (toolsearch, OpenAI, Anthropic, MCP or OpenAPI format), a folder, "
    f"a .py file, a module name, or a live MCP server (mcp+stdio:COMMAND, mcp+http://HOST/mcp, "
    f"optionally ALIAS=mcp+...), or a shared registry namespace (postgresql://HOST/DB?namespace=NAME); "
    f"repeatable. Default: ${ENV_VAR}, else ./catalogs, else the bundled demo."
)


# Options that several commands take, declared once as Annotated types (``catalog: CatalogSources = None``).

CatalogSources = Annotated[list[str] | None, typer.Option("--catalog", "-c", help=CATALOG_HELP, metavar="SOURCE")]


def output_file(option: str) -> Callable[[str | None], str | None]:
    """The callback of an option naming a file to write (``-o``, ``--save``, ``--record``,
    ``--state``): checked as typed, before anything runs. An empty name would silently write
    nothing, and ``new.json/`` (a folder's name) would become the file ``new.json``."""

    def check(value: str | None) -> str | None:
        if value is None:
            return None
        from ..files import check_output_name

        check_output_name(value, field=option)
        return value

    return check


def report_option(what: str) -> Any:
    """``--report FILE``: the HTML report of ``eval`` or ``simulate`` (``what`` it draws)."""
    return typer.Option(
        None,
        "--report",
        help=f"Also write an HTML report to FILE: {what}. One self-contained file (charts as inline SVG, "
        "no script): it loads nothing when opened, offline or not.",
        metavar="FILE",
        callback=output_file("--report"),
    )


CatalogFormat = Annotated[
    str,
    typer.Option(
        "--catalog-format",
        help=f"Format of the --catalog files: {', '.join(CATALOG_FORMATS)} (auto: detected from each file's "
        "content; yaml: toolsearch's own, in YAML or JSON).",
        metavar="FORMAT",
    ),
]


def check_catalog_format(value: str) -> str | None:
    """The --catalog-format value for load_catalog (None for auto); unknown names are a usage error."""
    if value not in CATALOG_FORMATS:
        from ..errors import UsageError, did_you_mean

        raise UsageError(
            f"unknown catalog format {value!r}{did_you_mean(value, CATALOG_FORMATS)}; "
            f"choose from {', '.join(CATALOG_FORMATS)}",
            field="catalog-format",
        )
    return None if value == "auto" else value


FORMATS = ("table", "json")


OutputFormat = Annotated[
    str,
    typer.Option("--format", "-f", help="Output: table (for people) or json (stable, for scripts).", metavar="FORMAT"),
]

RequestContext = Annotated[
    list[str] | None,
    typer.Option(
        "--context",
        help="Request context attribute key=value (e.g. role=admin); repeatable. Tools that require other "
        "attributes are hidden, as they are from a model.",
        metavar="KEY=VALUE",
    ),
]

ForwardedAllowIps = Annotated[
    str | None,
    typer.Option(
        "--forwarded-allow-ips",
        help="HTTP: the reverse proxies (addresses or networks, comma-separated; * for any) whose "
        "X-Forwarded-For and X-Forwarded-Proto are believed as the client's address and scheme. Default: "
        "none (the headers are ignored, whoever sends them, local processes too).",
        metavar="IPS",
    ),
]

Wide = Annotated[bool, typer.Option("--wide", "-w", help="Show descriptions in full (wrapped), not cut to fit a line.")]


def check_format(value: str) -> str:
    if value not in FORMATS:
        from ..errors import UsageError, did_you_mean

        raise UsageError(f"unknown format {value!r}{did_you_mean(value, FORMATS)}; choose from {', '.join(FORMATS)}")
    return value


# -- embedding models (the hybrid and embedding rankers) -------------------------------------
# Declared once, as Annotated types: a command that ranks takes the eight parameters below (after
# its own) and a typer.Context, and turns them into one EmbedSettings with embed_settings(context).

EmbedModel = Annotated[
    str | None,
    typer.Option(
        "--embed-model",
        envvar=environment.EMBED_MODEL,
        help="Embedding model for the hybrid and embedding rankers: a local folder (ONNX or model2vec), "
        "a Hub id fetched once with `toolsearch model pull NAME`, or a model name at --embed-base-url.",
        metavar="PATH|NAME",
    ),
]
EmbedBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--embed-base-url",
        envvar=environment.EMBED_BASE_URL,
        help="An OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, llama.cpp, TEI), "
        "e.g. http://localhost:11434/v1.",
        metavar="URL",
    ),
]
EmbedApiKeyEnv = Annotated[
    str,
    typer.Option(
        "--embed-api-key-env",
        envvar=environment.EMBED_API_KEY_ENV,
        help="Environment variable holding the endpoint's API key (never printed).",
        metavar="VAR",
    ),
]
EmbedMultilingual = Annotated[
    bool,
    typer.Option(
        "--embed-multilingual",
        envvar=environment.EMBED_MULTILINGUAL,
        help="The model understands Chinese/Japanese/Korean (otherwise hybrid ranks CJK queries lexically).",
    ),
]
EmbedTimeout = Annotated[
    str | None,
    typer.Option(
        "--embed-timeout",
        envvar=environment.EMBED_TIMEOUT,
        help="Seconds an embeddings endpoint has per request (default 60; the request is tried 3 times).",
        metavar="SECONDS",
    ),
]
EmbedQueryPrefix = Annotated[
    str | None,
    typer.Option(
        "--embed-query-prefix",
        envvar=environment.EMBED_QUERY_PREFIX,
        help="Text put before every query for the model (e.g. 'query: ' for E5 at an endpoint). Default: the "
        "model folder's own prompt (config_sentence_transformers.json), else none; '' for none.",
        metavar="TEXT",
    ),
]
EmbedDocumentPrefix = Annotated[
    str | None,
    typer.Option(
        "--embed-document-prefix",
        envvar=environment.EMBED_DOCUMENT_PREFIX,
        help="Text put before every tool text for the model (e.g. 'passage: ' for E5 at an endpoint). Default: "
        "the model folder's own document prompt, else none; '' for none.",
        metavar="TEXT",
    ),
]
EmbedWeight = Annotated[
    str | None,
    typer.Option(
        "--embed-weight",
        envvar=environment.EMBED_WEIGHT,
        help="hybrid's base share of the semantic part, 0 to 1, moved per request by the lexical evidence "
        "(default 0.5; 0.4 for universal-sentence-encoder-"
        "multilingual, see the README).",
        metavar="W",
    ),
]

#: The command parameters of the --embed-* options, in EmbedSettings' field order.
EMBED_PARAMETERS = (
    "embed_model",
    "embed_base_url",
    "embed_api_key_env",
    "embed_multilingual",
    "embed_timeout",
    "embed_query_prefix",
    "embed_document_prefix",
    "embed_weight",
)


def _check_endpoint(model: str | None, url: str, key_env: str, named: Callable[[str], str]) -> None:
    """--embed-base-url and --embed-api-key-env: a URL needs a model name and http(s); a key bound for
    plain http elsewhere is warned of. ``named``: how to call an option in an error (or its variable)."""
    from ..errors import UsageError

    if url and not (model or "").strip():
        raise UsageError(
            f"{named('embed-base-url')} needs {named('embed-model')}, the model's name at that endpoint",
            field="embed-model",
        )
    if url and not url.lower().startswith(("http://", "https://")):
        from ..redaction import shown_url

        raise UsageError(
            f"{named('embed-base-url')} must start with http:// or https://, not {shown_url(url)[:200]!r}",
            field="embed-base-url",
        )
    if not key_env.strip():
        raise UsageError(
            f"{named('embed-api-key-env')} needs the name of an environment variable", field="embed-api-key-env"
        )
    if url and os.environ.get(key_env.strip()):
        from ..redaction import clear_text_warning
        from .render import warn

        insecure = clear_text_warning(url, f"the embedding API key (${key_env.strip()})")
        if insecure is not None:
            warn(insecure)


#: option (without its dashes) -> the environment variable that gives its default (same order)
_EMBED_VARS = dict(
    zip((name.replace("_", "-") for name in EMBED_PARAMETERS), environment.EMBED_VARIABLES.values(), strict=True)
)


def embed_settings(context: typer.Context) -> EmbedSettings:
    """The --embed-* options of the running command (its parameters :data:`EMBED_PARAMETERS`) as one
    :class:`EmbedSettings`, checked: a bad value is a usage error naming the option, or its variable
    (``$TOOLSEARCH_EMBED_WEIGHT``) when the value came from there, not an option the user never typed."""
    values = context.params
    from_env = frozenset(
        name.replace("_", "-")
        for name in EMBED_PARAMETERS
        if getattr(context.get_parameter_source(name), "name", None) == "ENVIRONMENT"
    )
    return settings_from_options(*(values[name] for name in EMBED_PARAMETERS), from_env=from_env)


def settings_from_options(
    model: str | None,
    base_url: str | None,
    key_env: str,
    multilingual: bool,
    timeout: str | None = None,
    query_prefix: str | None = None,
    document_prefix: str | None = None,
    weight: str | None = None,
    *,
    from_env: frozenset[str] = frozenset(),
) -> EmbedSettings:
    """The embedding model the dense rankers use, from the options' values (nothing is loaded until
    one runs). ``from_env``: the options (``"embed-weight"``, ...) whose value came from their variable."""
    from ..errors import UsageError

    def named(option: str) -> str:
        return f"${_EMBED_VARS[option]}" if option in from_env else f"--{option}"

    url = (base_url or "").strip()
    _check_endpoint(model, url, key_env, named)
    try:
        seconds = check_timeout(timeout, named("embed-timeout"))
    except ValueError as exc:
        raise UsageError(str(exc), field="embed-timeout") from None
    for value, option in ((query_prefix, "embed-query-prefix"), (document_prefix, "embed-document-prefix")):
        try:
            check_prefix(value, named(option))
        except ValueError as exc:
            raise UsageError(str(exc), field=option) from None
    try:
        share = check_weight(weight, named("embed-weight"))
    except ValueError as exc:
        raise UsageError(str(exc), field="embed-weight") from None
    return EmbedSettings(
        model=(model or "").strip() or None,
        base_url=url or None,
        key_env=key_env.strip(),
        multilingual=multilingual,
        timeout=seconds,
        query_prefix=query_prefix,
        document_prefix=document_prefix,
        weight=share,
    )
