"""``toolsearch serve``: the MCP gateway (options -> ServeSettings -> serve, or dry run -> render)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import typer

from ..printable import json_visible
from ..search.base import MAX_RESULTS_LIMIT
from .lock_cmd import LOCKED_OPTION
from .options import (
    CatalogFormat,
    CatalogSources,
    EmbedApiKeyEnv,
    EmbedBaseUrl,
    EmbedDocumentPrefix,
    EmbedModel,
    EmbedMultilingual,
    EmbedQueryPrefix,
    EmbedTimeout,
    EmbedWeight,
    OutputFormat,
    RequestContext,
    check_catalog_format,
    check_format,
    embed_settings,
)
from .render import Col, console, data, plural, render_table

if TYPE_CHECKING:
    from ..serve.dry_run import DryRun
    from ..serve.settings import ServeSettings

RESIDENT_OPTION = typer.Option(
    None, "--resident", help="A tool listed up front, not only through search (repeatable).", metavar="NAME"
)
HTTP_OPTION = typer.Option(
    None, "--http", help="Serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio.", metavar="HOST:PORT"
)
DISCLOSE_OPTION = typer.Option(
    "call-through",
    "--disclose",
    help="call-through (the tool list never changes: toolSearch + callTool) or list-changed "
    "(hits join tools/list and the client is sent notifications/tools/list_changed).",
    metavar="MODE",
)
POLICY_OPTION = typer.Option(
    "latest",
    "--policy",
    "-p",
    help="list-changed: latest (each search replaces the hits) or cumulative.",
    metavar="POLICY",
)
MAX_ACTIVE_OPTION = typer.Option(
    None,
    "--max-active",
    help="list-changed: cap on disclosed tools (cumulative evicts the least recently used).",
    metavar="N",
)
RANKER_OPTION = typer.Option("default", "--ranker", "-r", help="Ranker used by toolSearch.", metavar="NAME")
CONTEXT_HEADER_OPTION = typer.Option(
    None,
    "--context-header",
    help="HTTP: read more context attributes per request from this header ('role=admin; team=x'); "
    "--context keys win. Only a trusted proxy should set it.",
    metavar="NAME",
)
MAX_RESULTS_OPTION = typer.Option(
    5,
    "--max-results",
    "-n",
    help=f"toolSearch's default maxResults (1-{MAX_RESULTS_LIMIT}).",
    min=1,
    max=MAX_RESULTS_LIMIT,
    metavar="N",
)
TIMEOUT_OPTION = typer.Option(
    30.0, "--timeout", help="Seconds an upstream server has to start and list, and to answer a call."
)
LOG_OPTION = typer.Option(
    None,
    "--log",
    help="Append JSON Lines of the traffic (queries, hits, which tool was called next, timings; never "
    "argument values) for `toolsearch eval --from-log`.",
    metavar="FILE",
)
CATALOG_VIA_OPTION = typer.Option(
    None,
    "--catalog-via",
    help="The alias of the live source (ALIAS=mcp+stdio:CMD) that runs the catalog files' tools: each "
    "file tool that server lists is searched by the file's text and called there. Without it, file "
    "tools cannot run and are left out (a client sees only tools it can call).",
    metavar="ALIAS",
)
ALLOW_FLAGGED_OPTION = typer.Option(
    None,
    "--allow-flagged",
    help="Serve this upstream tool although the injection rule (TS206) flags its text; NAME or "
    "ALIAS__NAME (repeatable). Flagged tools are otherwise quarantined: not listed, found or run.",
    metavar="NAME",
)
MAX_ARGUMENT_BYTES_OPTION = typer.Option(
    1_000_000,
    "--max-argument-bytes",
    help="Largest call arguments (bytes of JSON) passed on to a tool; larger are refused first.",
    metavar="BYTES",
)
HEADER_TIMEOUT_OPTION = typer.Option(
    10.0, "--header-timeout", help="HTTP: seconds a client has to send a request's headers.", metavar="SECONDS"
)
BODY_TIMEOUT_OPTION = typer.Option(
    30.0, "--body-timeout", help="HTTP: seconds a client has to send a request's body.", metavar="SECONDS"
)
TOKENS_OPTION = typer.Option(
    None,
    "--tokens",
    help="HTTP: require a bearer token listed (as its hash, with its context) in this file; see "
    "docs/how-to/gateway-security.md. TLS is the reverse proxy's job: the gateway speaks plain HTTP.",
    metavar="FILE",
)
DRY_RUN_OPTION = typer.Option(
    False, "--dry-run", help="Print the tools the client would see and their token cost, then exit."
)


def serve(
    typer_context: typer.Context,
    catalog: CatalogSources = None,
    http: str | None = HTTP_OPTION,
    disclose: str = DISCLOSE_OPTION,
    policy: str = POLICY_OPTION,
    max_active: int | None = MAX_ACTIVE_OPTION,
    ranker: str = RANKER_OPTION,
    resident: list[str] | None = RESIDENT_OPTION,
    context: RequestContext = None,
    context_header: str | None = CONTEXT_HEADER_OPTION,
    max_results: int = MAX_RESULTS_OPTION,
    timeout: float = TIMEOUT_OPTION,
    log: str | None = LOG_OPTION,
    catalog_via: str | None = CATALOG_VIA_OPTION,
    allow_flagged: list[str] | None = ALLOW_FLAGGED_OPTION,
    max_argument_bytes: int = MAX_ARGUMENT_BYTES_OPTION,
    header_timeout: float = HEADER_TIMEOUT_OPTION,
    body_timeout: float = BODY_TIMEOUT_OPTION,
    tokens: str | None = TOKENS_OPTION,
    dry_run: bool = DRY_RUN_OPTION,
    output_format: OutputFormat = "table",
    catalog_format: CatalogFormat = "auto",
    locked: str | None = LOCKED_OPTION,
    embed_model: EmbedModel = None,
    embed_base_url: EmbedBaseUrl = None,
    embed_api_key_env: EmbedApiKeyEnv = "OPENAI_API_KEY",
    embed_multilingual: EmbedMultilingual = False,
    embed_timeout: EmbedTimeout = None,
    embed_query_prefix: EmbedQueryPrefix = None,
    embed_document_prefix: EmbedDocumentPrefix = None,
    embed_weight: EmbedWeight = None,
) -> None:
    """Serve the catalogs to any MCP client with progressive disclosure (toolSearch + callTool)."""
    from ..catalog.sources import parse_sources
    from ..serve.settings import ServeSettings
    from ..simulate.script import parse_context

    embed = embed_settings(typer_context)
    check_format(output_format)
    _check_served(catalog)
    settings = ServeSettings(
        sources=parse_sources(catalog),  # the one place the --catalog text is read
        disclose=disclose,  # type: ignore[arg-type]  # checked by the settings
        policy=policy,
        max_active=max_active,
        ranker=ranker,
        resident=list(resident or []),
        context=parse_context(context),
        context_header=(context_header or "").strip() or None,
        default_max_results=max_results,
        timeout=timeout,
        catalog_format=check_catalog_format(catalog_format),
        log=log,
        http=http,
        dry_run=dry_run,
        locked=locked,
        embed=embed,
        catalog_via=catalog_via,
        allow_flagged=list(allow_flagged or []),
        max_argument_bytes=max_argument_bytes,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        tokens=tokens,
    )
    _run(settings, output_format)


def _check_served(catalog: list[str] | None) -> None:
    """Without ``--catalog`` (nor ``$TOOLSEARCH_CATALOG``, nor ./catalogs) the catalog would be the
    bundled demo, whose tools no server runs: a gateway an operator starts that way is a mistake."""
    from ..catalog.sources import bundled_catalog_path, default_sources
    from ..errors import UsageError

    if not catalog and default_sources() == [str(bundled_catalog_path())]:
        raise UsageError(
            "serve needs --catalog: the MCP servers to front (ALIAS=mcp+stdio:CMD, mcp+http(s)://URL) or a "
            "Python module of tools; the bundled demo catalog's tools are run by no server"
        )


def _run(settings: ServeSettings, output_format: str) -> None:
    """The model checked, then a dry run's listing, or the gateway until it is stopped."""
    _check_model(settings)
    if settings.dry_run:
        from ..serve.dry_run import dry_run as list_once

        report = list_once(settings)
        _render_dry_run(report, output_format)
        if report.failed:  # a server the gateway fronts did not list: not ready to serve
            raise typer.Exit(1)
        return
    import warnings

    from ..serve.run import serve as run_serve

    # the SDK warns on every ping of a handshake-era upstream (ping is gone from 2026-07-28 on);
    # this process is the gateway alone, and its stderr ends up in the MCP client's log
    warnings.filterwarnings("ignore", message=r".*(deprecated|removed) as of 2026-07-28")
    run_serve(settings, notice=_notice, on_signal=_stopped)


def _check_model(settings: ServeSettings) -> None:
    """A dense ranker's model that cannot be had stops here in one line, as in search and simulate."""
    from ..search import get_ranker

    if getattr(get_ranker(settings.ranker), "needs_embeddings", False):
        from ..search.embed import embedder_for
        from ..search.embed_settings import default_settings

        embedder_for(settings.embed if settings.embed is not None else default_settings())


def _stopped(signum: int) -> None:
    """SIGTERM, Ctrl-C or SIGHUP while serving over stdio, the upstreams stopped: the usual line and
    exit code (143 / 130 / 129), without waiting for the SDK's stdin reader, a thread blocked in read()."""
    import os
    import signal

    from .error_line import print_error

    said, code = {signal.SIGTERM: ("terminated", 143), getattr(signal, "SIGHUP", -1): ("hung up", 129)}.get(
        signum, ("interrupted", 130)
    )
    print_error(said)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _notice(text: str) -> None:
    from .render import error_console

    error_console().print(data(text))


def _render_dry_run(report: DryRun, output_format: str) -> None:
    if output_format == "json":
        typer.echo(json_visible(json.dumps(report.to_dict(), ensure_ascii=False, indent=2)))
        return
    out = console()
    render_table(
        out,
        [Col("tool", "name"), Col("tokens", "number", justify="right")],
        [[t["name"], str(t["tokens"])] for t in report.listed],
    )
    if report.break_even_tools is None:
        cost = f"{report.all_tokens:,} tokens ({report.saving_percent:.1f}% saved)"
    else:  # a negative saving, said as what it is
        cost = (
            f"{report.all_tokens:,} tokens; the gateway's {report.listed_tokens:,} tokens cost more than listing "
            f"them directly (worth it from about {report.break_even_tools} tools)"
        )
    out.print(
        data(
            f"\nthe client sees {plural(len(report.listed), 'tool')}: {report.listed_tokens:,} tokens "
            f"({report.counter}); listing all {plural(report.all_tools, 'upstream tool')} instead: "
            f"{cost} · disclose {report.disclose}"
        )
    )
    for source in report.sources:
        runs = "callable" if source["callable"] else "searchable only (not callable)"
        out.print(data(f"  {source['source']}: {plural(source['tools'], 'tool')}, {runs}", "dim"))
    for problem in report.failed:
        out.print(data(f"  failed: {problem}", "yellow"))
    for held in report.quarantined:
        out.print(data(f"  {held}", "yellow"), soft_wrap=True)
    if report.left_out:
        out.print(data(f"  {report.left_out}", "yellow"), soft_wrap=True)
