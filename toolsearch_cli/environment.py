"""The ``TOOLSEARCH_*`` environment variables: the one module that reads them.

Every other module receives the values (the CLI builds its settings from its options, then from
these variables; the library's functions take them as arguments or call the readers below). A
house test (``tests/api/test_environment_module.py``) fails when a ``TOOLSEARCH_*`` name appears
as a string anywhere else in the package, so a new variable is added here, to :data:`VARIABLES`.

name                                  type          default               meaning
------------------------------------  ------------  --------------------  ----------------------------------
TOOLSEARCH_CATALOG                    sources       ./catalogs, else demo catalog sources without --catalog
TOOLSEARCH_CACHE_DIR                  path          XDG cache/toolsearch  the cache folder
TOOLSEARCH_NO_CACHE                   flag          off                   1/true/yes/on: no cache at all
TOOLSEARCH_LIVE_TTL                   duration      0 (off)               reuse live servers' tool lists
TOOLSEARCH_MCP_TIMEOUT                seconds       30                    one exchange with an MCP server
TOOLSEARCH_MCP_HEADERS                secret text   none                  HTTP headers for MCP servers
TOOLSEARCH_MCP_CONCURRENCY            1..64         8                     live servers started at once
TOOLSEARCH_MCP_MAX_MESSAGE_SIZE       size          16MB                  largest message from a server
TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE      size          a catalog file's max  most bytes of one exchange
TOOLSEARCH_MCP_MAX_MESSAGES           count         10000                 most messages of one exchange
TOOLSEARCH_MCP_MAX_TOOLS              count         100000                most tools one server may list
TOOLSEARCH_EMBED_MODEL                text          none                  --embed-model
TOOLSEARCH_EMBED_BASE_URL             URL           none                  --embed-base-url
TOOLSEARCH_EMBED_API_KEY_ENV          variable      OPENAI_API_KEY        --embed-api-key-env
TOOLSEARCH_EMBED_MULTILINGUAL         flag          off                   --embed-multilingual
TOOLSEARCH_EMBED_TIMEOUT              seconds       60                    --embed-timeout
TOOLSEARCH_EMBED_QUERY_PREFIX         text          the model's prompt    --embed-query-prefix ('': none)
TOOLSEARCH_EMBED_DOCUMENT_PREFIX      text          the model's prompt    --embed-document-prefix ('': none)
TOOLSEARCH_EMBED_WEIGHT               0..1          0.5                   --embed-weight
TOOLSEARCH_REGISTRY_TOKEN             secret text   none                  bearer token(s) of registry HTTP sources
TOOLSEARCH_INPUT_<ID>                 secret text   none                  serve --config: ${input:ID}

The same table is :data:`VARIABLES` (name -> :class:`Variable`). The ``--embed-*`` options read
their variable through Typer (``envvar=``, so ``--help`` shows it), with the names from here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .errors import CatalogError


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    meaning: str
    type: str
    default: str


CATALOG = "TOOLSEARCH_CATALOG"
CACHE_DIR = "TOOLSEARCH_CACHE_DIR"
NO_CACHE = "TOOLSEARCH_NO_CACHE"
LIVE_TTL = "TOOLSEARCH_LIVE_TTL"
MCP_TIMEOUT = "TOOLSEARCH_MCP_TIMEOUT"
MCP_HEADERS = "TOOLSEARCH_MCP_HEADERS"
MCP_CONCURRENCY = "TOOLSEARCH_MCP_CONCURRENCY"
MCP_MAX_MESSAGE_SIZE = "TOOLSEARCH_MCP_MAX_MESSAGE_SIZE"
MCP_MAX_EXCHANGE_SIZE = "TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE"
MCP_MAX_MESSAGES = "TOOLSEARCH_MCP_MAX_MESSAGES"
MCP_MAX_TOOLS = "TOOLSEARCH_MCP_MAX_TOOLS"
EMBED_MODEL = "TOOLSEARCH_EMBED_MODEL"
EMBED_BASE_URL = "TOOLSEARCH_EMBED_BASE_URL"
EMBED_API_KEY_ENV = "TOOLSEARCH_EMBED_API_KEY_ENV"
EMBED_MULTILINGUAL = "TOOLSEARCH_EMBED_MULTILINGUAL"
EMBED_TIMEOUT = "TOOLSEARCH_EMBED_TIMEOUT"
EMBED_QUERY_PREFIX = "TOOLSEARCH_EMBED_QUERY_PREFIX"
EMBED_DOCUMENT_PREFIX = "TOOLSEARCH_EMBED_DOCUMENT_PREFIX"
EMBED_WEIGHT = "TOOLSEARCH_EMBED_WEIGHT"
REGISTRY_TOKEN = "TOOLSEARCH_REGISTRY_TOKEN"
#: A family: ``TOOLSEARCH_INPUT_`` + a VS Code input's id in capitals (:func:`input_variable`).
INPUT_PREFIX = "TOOLSEARCH_INPUT_"

#: Defaults of the MCP bounds (what an unset variable means).
DEFAULT_MCP_TIMEOUT = 30.0
DEFAULT_MCP_CONCURRENCY = 8
DEFAULT_MCP_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
DEFAULT_MCP_MAX_TOOLS = 100_000
DEFAULT_MCP_MAX_MESSAGES = 10_000

VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        Variable(
            CATALOG,
            "catalog sources when no --catalog is given (os.pathsep-separated)",
            "sources",
            "./catalogs, else the demo",
        ),
        Variable(CACHE_DIR, "the cache folder", "path", "$XDG_CACHE_HOME/toolsearch, else ~/.cache/toolsearch"),
        Variable(NO_CACHE, "1, true, yes or on turns every cache off", "flag", "off"),
        Variable(LIVE_TTL, "reuse live MCP servers' tool lists this long (90, 10m, 2h)", "duration", "0 (off)"),
        Variable(MCP_TIMEOUT, "seconds one exchange with an MCP server may take", "seconds", "30"),
        Variable(MCP_HEADERS, "HTTP headers for MCP servers: 'Name: value' lines or a JSON object", "secret text", ""),
        Variable(MCP_CONCURRENCY, "live MCP servers started at once", "whole number 1..64", "8"),
        Variable(MCP_MAX_MESSAGE_SIZE, "largest message read from an MCP server", "size", "16MB"),
        Variable(MCP_MAX_EXCHANGE_SIZE, "most bytes of one MCP exchange", "size", "what a catalog file may be"),
        Variable(MCP_MAX_MESSAGES, "most messages of one MCP exchange", "whole number", "10000"),
        Variable(MCP_MAX_TOOLS, "most tools one MCP server may list", "whole number", "100000"),
        Variable(EMBED_MODEL, "--embed-model", "text", ""),
        Variable(EMBED_BASE_URL, "--embed-base-url", "URL", ""),
        Variable(EMBED_API_KEY_ENV, "--embed-api-key-env", "variable name", "OPENAI_API_KEY"),
        Variable(EMBED_MULTILINGUAL, "--embed-multilingual", "flag", "off"),
        Variable(EMBED_TIMEOUT, "--embed-timeout", "seconds", "60"),
        Variable(EMBED_QUERY_PREFIX, "--embed-query-prefix (set but empty: none)", "text", "the model's prompt"),
        Variable(EMBED_DOCUMENT_PREFIX, "--embed-document-prefix (set but empty: none)", "text", "the model's prompt"),
        Variable(EMBED_WEIGHT, "--embed-weight", "number 0..1", "0.5"),
        Variable(
            REGISTRY_TOKEN,
            "bearer token of https://.../namespaces/NAME sources: one token, or NAMESPACE=TOKEN pairs",
            "secret text",
            "",
        ),
        Variable(
            INPUT_PREFIX,
            "serve --config: the value of ${input:ID} (+ the id in capitals, _ for other characters)",
            "secret text",
            "",
        ),
    )
}


def input_variable(ident: str) -> str:
    """The variable a config's ``${input:ID}`` is read from: :data:`INPUT_PREFIX` + the id in capitals."""
    import re

    return INPUT_PREFIX + re.sub(r"[^A-Za-z0-9]+", "_", ident).strip("_").upper()


def raw(name: str) -> str | None:
    """The variable's value as set (``None``: unset). Only names of :data:`VARIABLES`."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not a documented toolsearch variable (add it to environment.VARIABLES)")
    return os.environ.get(name)


def text(name: str) -> str:
    """The value stripped of surrounding blanks; unset is ``""``."""
    return (raw(name) or "").strip()


def flag(name: str) -> bool:
    return text(name).lower() in ("1", "true", "yes", "on")


def _count(name: str, default: int, high: int | None = None) -> int:
    value = text(name)
    if not value:
        return default
    if high is not None:
        if not value.isdigit() or not 1 <= int(value) <= high:
            raise CatalogError(f"${name} must be a whole number from 1 to {high}, not {value!r}")
    elif not value.isdigit() or int(value) < 1:
        raise CatalogError(f"${name} must be a whole number of at least 1, not {value!r}")
    return int(value)


def _size(name: str) -> int | None:
    value = text(name)
    if not value:
        return None
    from .bounded import parse_size

    return parse_size(value, f"${name}", error=CatalogError)


def catalog_sources() -> str:
    """``$TOOLSEARCH_CATALOG`` as set (split by :func:`toolsearch_cli.catalog.sources.split_env_sources`)."""
    return text(CATALOG)


def cache_enabled() -> bool:
    """Whether caches may be used (``$TOOLSEARCH_NO_CACHE`` is not set to a true value)."""
    return not flag(NO_CACHE)


def cache_dir() -> str:
    """``$TOOLSEARCH_CACHE_DIR`` (``""``: unset)."""
    return text(CACHE_DIR)


def live_ttl() -> str:
    """``$TOOLSEARCH_LIVE_TTL`` as written (``""``: unset); :func:`~.catalog.live_cache.parse_ttl` reads it."""
    return text(LIVE_TTL)


def registry_token() -> str:
    """``$TOOLSEARCH_REGISTRY_TOKEN`` as set (``""``: unset): a secret, parsed and registered for
    masking by :mod:`toolsearch_cli.registry.http_source`."""
    return text(REGISTRY_TOKEN)


def mcp_timeout() -> float:
    """``$TOOLSEARCH_MCP_TIMEOUT``: seconds above 0, else :data:`DEFAULT_MCP_TIMEOUT`."""
    value = text(MCP_TIMEOUT)
    if not value:
        return DEFAULT_MCP_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        raise CatalogError(f"${MCP_TIMEOUT} must be a number of seconds, not {value!r}") from None
    if seconds <= 0:
        raise CatalogError(f"${MCP_TIMEOUT} must be positive, not {value!r}")
    return seconds


def mcp_headers() -> str:
    """``$TOOLSEARCH_MCP_HEADERS`` as written (a secret: parsed and registered by the MCP client)."""
    return text(MCP_HEADERS)


def mcp_concurrency() -> int:
    return _count(MCP_CONCURRENCY, DEFAULT_MCP_CONCURRENCY, high=64)


def mcp_max_message_bytes() -> int:
    size = _size(MCP_MAX_MESSAGE_SIZE)
    return DEFAULT_MCP_MAX_MESSAGE_BYTES if size is None else size


def mcp_max_exchange_bytes() -> int | None:
    """``$TOOLSEARCH_MCP_MAX_EXCHANGE_SIZE`` in bytes, ``None`` when unset (the caller's default)."""
    return _size(MCP_MAX_EXCHANGE_SIZE)


def mcp_max_messages() -> int:
    return _count(MCP_MAX_MESSAGES, DEFAULT_MCP_MAX_MESSAGES)


def mcp_max_tools() -> int:
    return _count(MCP_MAX_TOOLS, DEFAULT_MCP_MAX_TOOLS)


@dataclass(frozen=True, slots=True)
class McpSettings:
    """What a run's MCP clients may do: one exchange's time, headers for HTTP servers, servers
    started at once, and the bounds of what a server sends. Built once from the variables
    (:func:`mcp_settings`) by the CLI and carried by the run's load settings
    (:attr:`toolsearch_cli.catalog.lenient.LoadSettings.mcp`); the MCP client and transport read
    it there, never the environment."""

    #: Seconds one exchange with a server may take.
    timeout: float = DEFAULT_MCP_TIMEOUT
    #: HTTP headers as written (``Name: value`` lines or a JSON object); a secret, parsed (and its
    #: values registered for masking) by :func:`toolsearch_cli.catalog.mcp_client.http_headers`.
    headers: str = field(default="", repr=False)
    #: Live servers started at once.
    concurrency: int = DEFAULT_MCP_CONCURRENCY
    #: The largest message read from a server.
    max_message_bytes: int = DEFAULT_MCP_MAX_MESSAGE_BYTES
    #: The most bytes of one exchange (``None``: what a whole listing may be).
    max_exchange_bytes: int | None = None
    #: The most messages of one exchange.
    max_messages: int = DEFAULT_MCP_MAX_MESSAGES
    #: The most tools one server may list.
    max_tools: int = DEFAULT_MCP_MAX_TOOLS


def mcp_settings() -> McpSettings:
    """The ``TOOLSEARCH_MCP_*`` variables as :class:`McpSettings` (a bad value: a
    :class:`~toolsearch_cli.errors.CatalogError` naming the variable)."""
    return McpSettings(
        timeout=mcp_timeout(),
        headers=mcp_headers(),
        concurrency=mcp_concurrency(),
        max_message_bytes=mcp_max_message_bytes(),
        max_exchange_bytes=mcp_max_exchange_bytes(),
        max_messages=mcp_max_messages(),
        max_tools=mcp_max_tools(),
    )


#: EmbedSettings field -> its variable (the settings are made in :mod:`.search.embed_settings`).
EMBED_VARIABLES: dict[str, str] = {
    "model": EMBED_MODEL,
    "base_url": EMBED_BASE_URL,
    "key_env": EMBED_API_KEY_ENV,
    "multilingual": EMBED_MULTILINGUAL,
    "timeout": EMBED_TIMEOUT,
    "query_prefix": EMBED_QUERY_PREFIX,
    "document_prefix": EMBED_DOCUMENT_PREFIX,
    "weight": EMBED_WEIGHT,
}


def embed_values() -> dict[str, str | None]:
    """The ``TOOLSEARCH_EMBED_*`` values as set, by settings field (``None``: unset)."""
    return {field: raw(name) for field, name in EMBED_VARIABLES.items()}
