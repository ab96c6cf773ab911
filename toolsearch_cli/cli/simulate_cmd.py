"""``toolsearch simulate``: run a scripted conversation (or replay a recorded one) through the disclosure engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import typer

from .options import (
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
    check_format,
    embed_settings,
    output_file,
    report_option,
)
from .simulate_live import (
    API_KEY_ENV_OPTION,
    API_OPTION,
    BASE_URL_OPTION,
    LIVE_OPTION,
    MAX_ITERATIONS_OPTION,
    MAX_REPLY_SIZE_OPTION,
    MAX_TOKENS_OPTION,
    MODEL_OPTION,
    PROMPT_OPTION,
    RECORD_OPTION,
    RETRIES_OPTION,
    RETRY_BACKOFF_OPTION,
    SYSTEM_OPTION,
    TEMPERATURE_OPTION,
    TIMEOUT_OPTION,
    TOOL_CHOICE_OPTION,
)

if TYPE_CHECKING:
    from ..simulate.settings import SimulateSettings

POLICY_HELP = (
    "Disclosure policy: latest (each search replaces the hits) or cumulative; 'latest,cumulative' compares. "
    "Default: the script's policy, else latest."
)


SCRIPT_ARGUMENT = typer.Argument(None, help="Conversation script (*.sim.yaml); omit with --replay.", metavar="[SCRIPT]")
MODE_OPTION = typer.Option(
    None,
    "--mode",
    "-m",
    help="chat (state from the messages) or agent (run state). Default: the script's mode, else chat.",
    metavar="MODE",
)
POLICY_OPTION = typer.Option(None, "--policy", "-p", help=POLICY_HELP, metavar="POLICY")
MAX_ACTIVE_OPTION = typer.Option(
    None,
    "--max-active",
    help="Cap on disclosed tools; cumulative evicts the least recently used (a call is a use), then the lowest ranked.",
    metavar="N",
)
STATE_OPTION = typer.Option(
    None,
    "--state",
    help="Agent mode: JSON run-state file, restored when present and saved after every search.",
    metavar="FILE",
    callback=output_file("--state"),
)
CHECK_OPTION = typer.Option(False, "--check", help="Exit 1 when an expectation fails or a protocol error occurs.")
REPLAY_OPTION = typer.Option(
    None,
    "--replay",
    help="Recorded conversation (OpenAI messages JSON/JSONL, or a transcript) to replay.",
    metavar="FILE",
)
EXECUTE_OPTION = typer.Option(
    False, "--execute", help="Run the Python functions of module catalogs for calls without a scripted result."
)
MAX_RESULT_SIZE_OPTION = typer.Option(
    "1MB",
    "--max-result-size",
    help="The largest tool result sent to the model (B, KB, MB); a bigger one becomes an error result.",
    metavar="SIZE",
)
RANKER_OPTION = typer.Option(
    None, "--ranker", "-r", help="Ranker used by toolSearch (default: default).", metavar="NAME"
)
REPORT_OPTION = report_option(
    "tokens per request per policy against sending all tools, the tools of each request as a timeline, "
    "the prompt cache's prefix stability and the findings"
)
COUNTER_OPTION = typer.Option(
    "cl100k_base", "--counter", help="Token counter: cl100k_base (exact) or chars4.", metavar="NAME"
)


def simulate(
    typer_context: typer.Context,
    script: str | None = SCRIPT_ARGUMENT,
    catalog: CatalogSources = None,
    mode: str | None = MODE_OPTION,
    policy: str | None = POLICY_OPTION,
    max_active: int | None = MAX_ACTIVE_OPTION,
    context: RequestContext = None,
    state_file: str | None = STATE_OPTION,
    output_format: OutputFormat = "table",
    check: bool = CHECK_OPTION,
    replay: str | None = REPLAY_OPTION,
    execute: bool = EXECUTE_OPTION,
    max_result_size: str = MAX_RESULT_SIZE_OPTION,
    ranker: str | None = RANKER_OPTION,
    counter: str = COUNTER_OPTION,
    html_report: str | None = REPORT_OPTION,
    live: bool = LIVE_OPTION,
    prompt: str | None = PROMPT_OPTION,
    base_url: str | None = BASE_URL_OPTION,
    model: str | None = MODEL_OPTION,
    api_key_env: str = API_KEY_ENV_OPTION,
    max_iterations: int = MAX_ITERATIONS_OPTION,
    temperature: float | None = TEMPERATURE_OPTION,
    tool_choice: str = TOOL_CHOICE_OPTION,
    timeout: float = TIMEOUT_OPTION,
    retries: int = RETRIES_OPTION,
    retry_backoff: float = RETRY_BACKOFF_OPTION,
    record: str | None = RECORD_OPTION,
    max_tokens: int | None = MAX_TOKENS_OPTION,
    system: str | None = SYSTEM_OPTION,
    api: str | None = API_OPTION,
    max_reply_size: str = MAX_REPLY_SIZE_OPTION,
    embed_model: EmbedModel = None,
    embed_base_url: EmbedBaseUrl = None,
    embed_api_key_env: EmbedApiKeyEnv = "OPENAI_API_KEY",
    embed_multilingual: EmbedMultilingual = False,
    embed_timeout: EmbedTimeout = None,
    embed_query_prefix: EmbedQueryPrefix = None,
    embed_document_prefix: EmbedDocumentPrefix = None,
    embed_weight: EmbedWeight = None,
) -> None:
    """Show the tools every model request carries, what they cost in tokens, and check the script's expectations.

    With --live a real model (OpenAI Chat Completions protocol) answers instead of the script.
    """
    # the options, by the names of the settings' fields
    settings = simulate_settings({**locals(), "embed": embed_settings(typer_context)})
    check_format(output_format)
    from ..simulate.run import run_simulation
    from .render import console
    from .simulate_render import print_simulation, simulation_progress

    out = console() if output_format == "table" else None  # None: JSON
    result = run_simulation(settings, simulation_progress(out))
    print_simulation(out, result, html_report)
    if result.failure is not None:
        raise result.failure
    if check and not result.ok:
        raise typer.Exit(1)


def simulate_settings(options: Mapping[str, Any]) -> SimulateSettings:
    """The command's options as settings: each option is the field of the same name (the
    checks are the settings' own, when the simulation runs)."""
    from ..catalog.sources import parse_sources
    from ..simulate.settings import LiveSettings, SimulateSettings

    def given(kind: type) -> dict[str, Any]:
        return {f.name: options[f.name] for f in fields(kind) if f.name in options}

    live = LiveSettings(**given(LiveSettings))
    # the one place the --catalog text is read (none given: the script's or recording's catalog)
    catalog = parse_sources(options["catalog"]) if options.get("catalog") else None
    return SimulateSettings(
        **{**given(SimulateSettings), "catalog": catalog, "context": options["context"] or (), "live_settings": live}
    )
