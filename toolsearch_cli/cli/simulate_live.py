"""``toolsearch simulate --live``: the options and the run, printing each request as it is answered."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import typer

from ..errors import UsageError
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


_SIZE = re.compile(r"\s*(\d+)\s*(b|kb|mb|gb)?\s*", re.I)
_UNIT = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3}


def parse_size(text: str, option: str) -> int:
    """``4MB``, ``512KB``, ``100`` (bytes) as bytes (units of 1,024); at least 1 byte."""
    match = _SIZE.fullmatch(text)
    size = int(match.group(1)) * _UNIT[(match.group(2) or "b").lower()] if match else 0
    if size < 1:
        raise UsageError(f"{option} takes a size such as 4MB, 512KB or 1000 (bytes), not {text!r}", field=option)
    return size


def run_live_command(
    *,
    script: str | None,
    settings_cli: dict[str, Any],
    policies: list[str | None],
    output_format: str,
    check: bool,
    prompt: str | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str,
    max_iterations: int,
    temperature: float | None,
    tool_choice: str,
    timeout: float,
    retries: int,
    retry_backoff: float,
    record: str | None,
    max_tokens: int | None = None,
    system: str | None = None,
    api: str = "openai-chat",
    max_reply_size: str = "4MB",
) -> None:
    from ..catalog import refuse_unnamed_code
    from ..redaction import register, register_url, shown_url
    from ..simulate import load_script, merged_settings
    from ..simulate.live import LiveOptions, Recorder, run_live, user_messages
    from ..simulate.live_client import LiveError
    from ..simulate.provider_clients import DEFAULTS_BY_API, client_class

    client_type = client_class(api)
    url_env, default_url, default_key_env = DEFAULTS_BY_API[api if api in DEFAULTS_BY_API else "openai-chat"]
    if api_key_env == "OPENAI_API_KEY":  # the option's default: the API's own variable
        api_key_env = default_key_env
    # the secrets first: from here on nothing printed or written can show them
    url = base_url or os.environ.get(url_env) or default_url
    register_url(url)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", api_key_env):
        register(api_key_env)  # perhaps the key itself
        raise UsageError(
            "--api-key-env takes the name of an environment variable (letters, digits and _), "
            "not a key; the value given is not shown",
            field="api_key_env",
        )
    api_key = os.environ.get(api_key_env) or None
    register(api_key)
    if len(policies) > 1:
        raise UsageError(
            "--live runs one policy; to compare, --record FILE then --replay FILE --policy latest,cumulative",
            field="policy",
        )
    if not model or not model.strip():
        raise UsageError("--live needs --model NAME (the model the server should run)", field="model")
    if max_iterations < 1:
        raise UsageError(f"--max-iterations must be at least 1, not {max_iterations}", field="max_iterations")
    if temperature is not None and not 0 <= temperature <= 2:
        raise UsageError(f"--temperature must be between 0 and 2, not {temperature:g}", field="temperature")
    if tool_choice not in ("auto", "required", "none", "omit"):
        raise UsageError(
            f"--tool-choice must be auto, required, none or omit, not {tool_choice!r}", field="tool_choice"
        )
    if max_tokens is not None and max_tokens < 1:
        raise UsageError(f"--max-tokens must be at least 1, not {max_tokens}", field="max_tokens")
    max_reply_bytes = parse_size(max_reply_size, "--max-reply-size")
    if system is not None and not system.strip():
        raise UsageError("--system is blank: give the system message, or leave it out", field="system")
    choice = None if tool_choice == "omit" else tool_choice
    parsed = load_script(script) if script is not None else None
    if parsed is not None and settings_cli.get("catalog") is None:
        refuse_unnamed_code(parsed.catalog, "the script", parsed.file, parsed.catalog_lines)
    user_messages(parsed, prompt)  # the one-line error before any request
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"--base-url must start with http:// or https://, not {shown_url(url)!r}", field="base_url")
    if api_key is not None:
        from ..redaction import clear_text_warning
        from .render import warn

        insecure = clear_text_warning(url, f"the API key (${api_key_env})")
        if insecure is not None:
            warn(insecure)
    settings = merged_settings(parsed, {**settings_cli, "policy": policies[0]})
    options = LiveOptions(
        base_url=shown_url(url.rstrip("/")),  # printed and recorded: never credentials
        model=model,
        api_key_env=api_key_env,
        max_iterations=max_iterations,
        temperature=temperature,
        tool_choice=choice,
        timeout=timeout,
        retries=retries,
        max_tokens=max_tokens,
        api=client_type.api,
    )

    table = output_format == "table"
    out: Any = None
    if table:
        from .render import console

        out = console()

    answered = [0]  # requests printed so far: a retry belongs to the next one

    def on_retry(status: int, attempt: int, delay: float) -> None:
        if out is not None:
            out.print(
                f"… request {answered[0] + 1}: HTTP {status}, retry {attempt}/{retries} in {delay:g}s",
                style="yellow",
                markup=False,
            )

    client = client_type(
        base_url=url.rstrip("/"),
        model=model,
        api_key=api_key,
        api_key_env=api_key_env,
        timeout=timeout,
        temperature=temperature,
        tool_choice=choice,
        retries=retries,
        backoff=retry_backoff,
        on_retry=on_retry,
        max_tokens=max_tokens,
        max_reply_bytes=max_reply_bytes,
    )
    recorder = Recorder(record) if record else None
    on_request = None
    if out is not None:
        from .simulate_render import render_live_header, render_request

        render_live_header(out, parsed.name if parsed else "--prompt", settings, options, api_key is not None)

        def on_request(record_: Any) -> None:
            answered[0] += 1
            out.print()
            render_request(out, record_)

    failure: LiveError | None = None
    try:
        transcript = run_live(
            client,
            settings,
            options,
            script=parsed,
            prompt=prompt,
            system=system,
            source=script or "--prompt",
            recorder=recorder,
            on_request=on_request,
        )
    except LiveError as exc:
        partial = getattr(exc, "transcript", None)
        if partial is None:
            raise
        failure, transcript = exc, partial
    if out is not None:
        from .simulate_render import render_summary

        out.print()
        render_summary(out, transcript)
        if record:
            verb = "kept what was recorded in" if failure else "recorded to"
            out.print(f"{verb} {record} (replay: toolsearch simulate --replay {record})", style="dim", markup=False)
    else:
        from ..printable import json_visible

        # the stream masks secrets
        typer.echo(json_visible(json.dumps(transcript.to_dict(), ensure_ascii=False, indent=2)))
    if failure is not None:
        raise failure
    if check and not transcript.ok:
        raise typer.Exit(1)
