"""``toolsearch simulate``: run a scripted conversation (or replay a recorded one) through the disclosure engine."""

from __future__ import annotations

import json
from typing import Any

import typer

from ..errors import ToolsearchError, UsageError
from ..printable import json_visible
from .options import (
    CATALOG_OPTION,
    CONTEXT_OPTION,
    FORMAT_OPTION,
    check_format,
    embed_options,
    output_file,
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
    parse_size,
)

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
COUNTER_OPTION = typer.Option(
    "cl100k_base", "--counter", help="Token counter: cl100k_base (exact) or chars4.", metavar="NAME"
)


@embed_options
def simulate(
    script: str | None = SCRIPT_ARGUMENT,
    catalog: list[str] | None = CATALOG_OPTION,
    mode: str | None = MODE_OPTION,
    policy: str | None = POLICY_OPTION,
    max_active: int | None = MAX_ACTIVE_OPTION,
    context: list[str] | None = CONTEXT_OPTION,
    state: str | None = STATE_OPTION,
    output_format: str = FORMAT_OPTION,
    check: bool = CHECK_OPTION,
    replay_file: str | None = REPLAY_OPTION,
    execute: bool = EXECUTE_OPTION,
    max_result_size: str = MAX_RESULT_SIZE_OPTION,
    ranker: str | None = RANKER_OPTION,
    counter: str = COUNTER_OPTION,
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
) -> None:
    """Show the tools every model request carries, what they cost in tokens, and check the script's expectations.

    With --live a real model (OpenAI Chat Completions protocol) answers instead of the script.
    """
    from ..catalog import refuse_unnamed_code
    from ..disclosure.policy import POLICY_BY_NAME
    from ..simulate import load_conversation, load_script, merged_settings, parse_context, replay, run_script
    from ..simulate.runner import build_engine

    check_format(output_format)
    if live:
        if replay_file is not None:
            raise UsageError("--live asks a model; --replay reads a recording: use one of them")
        if script is None and prompt is None:
            raise UsageError("--live needs the user's message: --prompt TEXT or a SCRIPT", field="prompt")
    else:
        live_only = {
            "--prompt": prompt,
            "--base-url": base_url,
            "--model": model,
            "--record": record,
            "--max-tokens": max_tokens,
            "--system": system,
            "--api": api,
        }
        given = [name for name, value in live_only.items() if value is not None]
        if given:
            raise UsageError(f"{given[0]} is for live runs: add --live", field=given[0].lstrip("-"))
        if (script is None) == (replay_file is None):
            raise UsageError("give a SCRIPT to simulate, or --replay FILE (not both)")
    policies: list[str | None] = [p.strip() for p in (policy or "").split(",") if p.strip()] or [None]
    for name in policies:
        if name is not None and name not in POLICY_BY_NAME:
            from ..disclosure.policy import get_policy

            get_policy(name)  # raises the one-line error with a suggestion
    if len(policies) > 1 and state:
        raise UsageError("--state cannot be shared by several policies; compare without --state")
    if max_active is not None and max_active < 1:
        raise UsageError(f"--max-active must be at least 1, not {max_active}", field="max_active")
    if mode is not None and mode not in ("chat", "agent"):
        raise UsageError(f"unknown mode {mode!r}; choose from chat, agent", field="mode")
    cli: dict[str, Any] = {
        "catalog": catalog or None,
        "mode": mode,
        "max_active": max_active,
        "context": parse_context(context),
        "state_file": state,
        "execute": execute,
        "ranker": ranker,
        "counter": counter,
        "max_result_bytes": parse_size(max_result_size, "--max-result-size"),
    }
    if live:
        from .simulate_live import run_live_command

        run_live_command(
            script=script,
            settings_cli=cli,
            policies=policies,
            output_format=output_format,
            check=check,
            prompt=prompt,
            base_url=base_url,
            model=model,
            api_key_env=api_key_env,
            max_iterations=max_iterations,
            temperature=temperature,
            tool_choice=tool_choice,
            timeout=timeout,
            retries=retries,
            retry_backoff=retry_backoff,
            record=record,
            api=api or "openai-chat",
            max_tokens=max_tokens,
            system=system,
            max_reply_size=max_reply_size,
        )
        return
    transcripts = []
    if replay_file is not None:
        if mode == "agent" or state:
            raise UsageError(
                "--replay derives the state from the recorded messages (chat mode); drop --mode agent/--state"
            )
        from ..simulate.live import recorded_transcript, recording_settings

        messages = load_conversation(replay_file)
        recorded = recorded_transcript(replay_file)
        # a toolsearch transcript (e.g. a --record file) replays with its own settings unless overridden
        defaults = recording_settings(recorded) if recorded is not None else {}
        if cli["catalog"] is None:
            refuse_unnamed_code(defaults.get("catalog", ()), "the recording", replay_file)
        for name in policies:
            values = {**cli, "policy": name}
            recorded_keys = []
            for key in ("catalog", "policy", "max_active", "ranker"):
                if values.get(key) is None and key in defaults:
                    values[key] = defaults[key]
                    recorded_keys.append(key)
            values["context"] = {**defaults.get("context", {}), **cli["context"]}
            try:
                settings = merged_settings(None, values)
                engine = build_engine(settings, defaults.get("resident", ()), str(replay_file))
            except ToolsearchError as exc:  # a bad setting read from the recording: name the recording
                if exc.file is None and (exc.field in recorded_keys or exc.field == "context"):
                    exc.file = str(replay_file)
                raise
            error = recorded.get("error") if recorded is not None else None
            requests = recorded.get("requests") if recorded is not None else None
            requests = requests if isinstance(requests, list) else []  # a hostile recording: no figures
            recorded_live = [r.get("live") if isinstance(r, dict) else None for r in requests]
            error = error if isinstance(error, str) else None
            transcripts.append(replay(messages, engine, settings, replay_file, error=error, live=recorded_live))
    else:
        assert script is not None
        parsed = load_script(script)
        if cli["catalog"] is None:
            refuse_unnamed_code(parsed.catalog, "the script", script, parsed.catalog_lines)
        for name in policies:
            settings = merged_settings(parsed, {**cli, "policy": name})
            transcripts.append(run_script(parsed, settings))

    if output_format == "json":
        if len(transcripts) == 1:
            payload: Any = transcripts[0].to_dict()
        else:
            payload = {"format": "toolsearch.comparison", "runs": [t.to_dict() for t in transcripts]}
        typer.echo(json_visible(json.dumps(payload, ensure_ascii=False, indent=2)))
    else:
        from .render import console
        from .simulate_render import render_comparison, render_transcript

        out = console()
        if len(transcripts) == 1:
            render_transcript(out, transcripts[0])
        else:
            for transcript in transcripts:
                render_transcript(out, transcript)
                out.print()
            render_comparison(out, transcripts)
    if check and any(not t.ok for t in transcripts):
        raise typer.Exit(1)
