"""``toolsearch simulate --live``: the options (the run is :func:`toolsearch_cli.simulate.run.run_simulation`)."""

from __future__ import annotations

import typer

from .options import output_file

LIVE_OPTION = typer.Option(
    False, "--live", help="Ask a real model (OpenAI Chat Completions protocol); needs toolsearch-cli[live]."
)
PROMPT_OPTION = typer.Option(None, "--prompt", help="Live: the user's message (else the SCRIPT's user turns).")
BASE_URL_OPTION = typer.Option(
    None,
    "--base-url",
    help="Live: API base URL, e.g. http://127.0.0.1:8080/v1 (default: $OPENAI_BASE_URL, else OpenAI; "
    "with --api anthropic $ANTHROPIC_BASE_URL, else Anthropic).",
)
MODEL_OPTION = typer.Option(None, "--model", help="Live: model name sent with each request (required with --live).")
API_KEY_ENV_OPTION = typer.Option(
    "OPENAI_API_KEY",
    "--api-key-env",
    help="Live: environment variable holding the API key (never printed or recorded); "
    "ANTHROPIC_API_KEY by default with --api anthropic.",
)
MAX_ITERATIONS_OPTION = typer.Option(10, "--max-iterations", help="Live: model requests per user message at most.")
TEMPERATURE_OPTION = typer.Option(None, "--temperature", help="Live: sampling temperature (default: the server's).")
TOOL_CHOICE_OPTION = typer.Option(
    "auto", "--tool-choice", help="Live: tool_choice sent with the tools: auto, required, none, or omit (not sent)."
)
TIMEOUT_OPTION = typer.Option(
    60.0, "--timeout", help="Live: seconds for each whole model reply (a total deadline, not per read)."
)
MAX_REPLY_SIZE_OPTION = typer.Option(
    "4MB",
    "--max-reply-size",
    help="Live: the largest reply body read from the model server (B, KB, MB); a bigger one ends the run.",
    metavar="SIZE",
)
RETRIES_OPTION = typer.Option(3, "--retries", help="Live: retries after HTTP 429 or 5xx (exponential backoff).")
RETRY_BACKOFF_OPTION = typer.Option(
    1.0, "--retry-backoff", help="Live: seconds before the first retry, doubled each time (Retry-After wins)."
)
MAX_TOKENS_OPTION = typer.Option(
    None, "--max-tokens", help="Live: max_tokens for each reply (default: the server's); a cut-off reply is flagged."
)
SYSTEM_OPTION = typer.Option(
    None, "--system", help="Live: system message sent first (replaces the script's 'system'); some servers need one."
)
API_OPTION = typer.Option(
    None,
    "--api",
    help="Live: the provider API the model server speaks: openai-chat (default), openai-responses or "
    "anthropic; each through its official SDK.",
    metavar="API",
)
RECORD_OPTION = typer.Option(
    None,
    "--record",
    help="Live: write messages + snapshots to FILE after every request (replay with --replay FILE).",
    metavar="FILE",
    callback=output_file("--record"),
)
