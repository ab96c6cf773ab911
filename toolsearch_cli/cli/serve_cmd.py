"""``toolsearch serve``: the MCP gateway (options -> ServeSettings -> serve, or dry run -> render)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

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
    ForwardedAllowIps,
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
    None,
    "--http",
    help="Serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio; also GET /healthz, /readyz (503, "
    "naming them, until every required upstream has listed) and /metrics (Prometheus).",
    metavar="HOST:PORT",
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
    False,
    "--dry-run",
    help="Print the tools the client would see and their token cost, then exit: 1 when a required "
    "upstream failed (one marked 'required: false' in the --config is a warning line).",
)
CONFIG_OPTION = typer.Option(
    None,
    "--config",
    help="Serve the servers of this MCP client config (Claude Desktop/Cursor 'mcpServers', VS Code 'servers', "
    "as they are) with the policy of its 'toolsearch' section (docs: how-to/gateway-config). Naming the file "
    "here is your consent to start every command in it. With --import-client: where the new config is written.",
    metavar="FILE",
)
IMPORT_CLIENT_OPTION = typer.Option(
    None,
    "--import-client",
    help="claude-desktop, cursor or vscode: move that client's servers into a new toolsearch config (mode "
    "0600, never over an existing file), print the client config that runs them through the gateway, and exit.",
    metavar="CLIENT",
)
CLIENT_CONFIG_OPTION = typer.Option(
    None,
    "--client-config",
    help="--import-client: the client's config file (default: where the client keeps it).",
    metavar="PATH",
)
APPLY_OPTION = typer.Option(
    False, "--apply", help="--import-client: also rewrite the client's config in place (a backup is kept beside it)."
)
LOG_FORMAT_OPTION = typer.Option(
    "text",
    "--log-format",
    help="text, or json: the gateway's notices and every search and call as JSON lines on stderr (names, "
    "outcomes, timings; never queries, argument values or secrets).",
    metavar="FORMAT",
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
    forwarded_allow_ips: ForwardedAllowIps = None,
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
    config: str | None = CONFIG_OPTION,
    import_client: str | None = IMPORT_CLIENT_OPTION,
    client_config: str | None = CLIENT_CONFIG_OPTION,
    apply: bool = APPLY_OPTION,
    log_format: str = LOG_FORMAT_OPTION,
) -> None:
    """Serve the catalogs to any MCP client with progressive disclosure (toolSearch + callTool)."""
    from ..serve.settings import ServeSettings

    if _import_mode(import_client, client_config, config, apply, log_format):
        return
    embed = embed_settings(typer_context)
    check_format(output_format)
    options = _options(typer_context.params, embed)
    if config is None:
        _check_served(catalog)
    else:
        options = _with_config(typer_context, config, options, log_format)
    settings = ServeSettings(**options)  # type: ignore[arg-type]  # checked by the settings
    _run(settings, output_format)


def _import_mode(
    import_client: str | None, client_config: str | None, config: str | None, apply: bool, log_format: str
) -> bool:
    """--import-client done (``True``), or the serving options that only it takes refused."""
    from ..errors import UsageError

    if import_client is not None:
        _import_client(import_client, client_config, config, apply)
        return True
    if client_config is not None or apply:
        raise UsageError("--client-config and --apply go with --import-client", field="import-client")
    if log_format not in ("text", "json"):
        raise UsageError(f"--log-format takes text or json, not {log_format!r}", field="log-format")
    return False


def _options(params: dict[str, Any], embed: Any) -> dict[str, Any]:
    """The gateway's settings from the command's options (``ServeSettings`` keywords)."""
    from ..catalog.sources import parse_sources
    from ..forwarded import parse_forwarded_allow_ips
    from ..simulate.script import parse_context

    catalog, config = params["catalog"], params["config"]
    return dict(
        sources=parse_sources(catalog) if catalog or config is None else [],  # the one place --catalog is read
        disclose=params["disclose"],
        policy=params["policy"],
        max_active=params["max_active"],
        ranker=params["ranker"],
        resident=list(params["resident"] or []),
        context=parse_context(params["context"]),
        context_header=(params["context_header"] or "").strip() or None,
        default_max_results=params["max_results"],
        timeout=params["timeout"],
        catalog_format=check_catalog_format(params["catalog_format"]),
        log=params["log"],
        http=params["http"],
        dry_run=params["dry_run"],
        locked=params["locked"],
        embed=embed,
        catalog_via=params["catalog_via"],
        allow_flagged=list(params["allow_flagged"] or []),
        max_argument_bytes=params["max_argument_bytes"],
        header_timeout=params["header_timeout"],
        body_timeout=params["body_timeout"],
        tokens=params["tokens"],
        forwarded_allow_ips=parse_forwarded_allow_ips(params["forwarded_allow_ips"]),
        log_format=params["log_format"],
    )


def _with_config(typer_context: typer.Context, config: str, options: dict[str, Any], log_format: str) -> dict[str, Any]:
    """--config: its servers and settings added, where the command line (or a variable) gave none."""
    from ..serve.config import merge_options, read_config

    given = ("COMMANDLINE", "ENVIRONMENT")
    explicit = {n for n in typer_context.params if getattr(typer_context.get_parameter_source(n), "name", "") in given}
    read = read_config(config)
    for warning in read.warnings:
        (_json_notice if log_format == "json" else _notice)(warning)
    return merge_options(read, options, explicit)


def _json_notice(text: str) -> None:
    from ..serve.ops import json_line, notice_record

    json_line(notice_record(text))


def _import_client(client: str, client_config: str | None, config: str | None, apply: bool) -> None:
    """--import-client: the new client config on stdout, what was done on stderr."""
    from ..serve.clients import import_client

    done = import_client(client, client_config, config, apply=apply)
    typer.echo(json_visible(done.client_text()), nl=False)  # invisible characters escaped: the same JSON
    say = _notice
    say(f"wrote {done.gateway_config} (mode 0600): {plural(len(done.servers), 'server')} from {done.client_config}")
    for line in done.summary:
        say(f"  {line}")
    if done.backup is not None:
        say(f"rewrote {done.client_config} (the old one is {done.backup}); restart {client} to use the gateway")
    else:
        say(f"{done.client_config} is unchanged: put the config above in its place (or run again with --apply)")


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
        if report.required_failed:  # a required server did not list: not ready to serve
            raise typer.Exit(1)
        return
    import warnings

    from ..serve.run import serve as run_serve

    # the SDK warns on every ping of a handshake-era upstream (ping is gone from 2026-07-28 on);
    # this process is the gateway alone, and its stderr ends up in the MCP client's log
    warnings.filterwarnings("ignore", message=r".*(deprecated|removed) as of 2026-07-28")
    run_serve(settings, notice=_json_notice if settings.log_format == "json" else _notice, on_signal=_stopped)


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
        runs = "called on its MCP server" if source["kind"] == "mcp" else "run in the gateway's process"
        out.print(data(f"  {source['source']}: {plural(source['tools'], 'tool')}, {runs}", "dim"))
    for problem in report.failed:
        if problem in report.required_failed:
            out.print(data(f"  failed: {problem}", "yellow"))
        else:  # required: false in the --config: /readyz does not wait for it, nor does the dry run
            out.print(data(f"  warning: {problem} (not required)", "yellow"))
    for held in report.quarantined:
        out.print(data(f"  {held}", "yellow"), soft_wrap=True)
    if report.left_out:
        out.print(data(f"  {report.left_out}", "yellow"), soft_wrap=True)
