"""One entry point for every simulation: :func:`run_simulation` takes :class:`SimulateSettings`,
chooses the scripted, replay or live run, merges a recording's or script's settings under the
options given, and returns a :class:`SimulationResult` (one transcript per policy compared).

It prints nothing: a caller that shows a live run as it goes passes :class:`Progress` callbacks.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from ..errors import ToolsearchError, UsageError
from .settings import (
    DEFAULT_KEY_ENV,
    LiveSettings,
    Settings,
    SimulateSettings,
    check_key_variable,
    merged_settings,
)
from .transcript import RequestRecord, Transcript

if TYPE_CHECKING:
    from ..providers.client import LiveClient, LiveError
    from .live import LiveOptions

#: The format of a comparison of several policies' runs.
COMPARISON_FORMAT = "toolsearch.comparison"


@dataclass(slots=True)
class Progress:
    """Callbacks of a run as it goes (a live run's header, each request answered, each retry, and
    warnings); every one may be left out."""

    #: A one-line warning (e.g. the key would travel in clear text).
    warning: Callable[[str], None] | None = None
    #: A live run starts: its name, its settings, the endpoint, whether a key is sent.
    live_start: Callable[[str, Settings, LiveOptions, bool], None] | None = None
    #: A request was answered.
    request: Callable[[RequestRecord], None] | None = None
    #: ``(request number, HTTP status, attempt, retries at most, seconds before it)``.
    retry: Callable[[int, int, int, int, float], None] | None = None


@dataclass(slots=True)
class SimulationResult:
    """The runs of a simulation: one transcript per policy (a live run has one)."""

    transcripts: list[Transcript]
    #: A live run the server ended early: the transcript holds what was done before.
    failure: LiveError | None = None
    #: The file a live run was recorded to.
    record: str | None = None
    #: The warnings given through :attr:`Progress.warning` (also kept here).
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No failed check, no protocol error, and the run was not cut short."""
        return self.failure is None and all(t.ok for t in self.transcripts)

    def to_dict(self) -> dict[str, Any]:
        """One transcript's document, or a ``toolsearch.comparison`` of several."""
        if len(self.transcripts) == 1:
            return self.transcripts[0].to_dict()
        return {"format": COMPARISON_FORMAT, "runs": [t.to_dict() for t in self.transcripts]}


def run_simulation(settings: SimulateSettings, progress: Progress | None = None) -> SimulationResult:
    """Check ``settings`` (one-line :class:`~toolsearch_cli.errors.UsageError`\\ s) and run them.

    A live run the server ends early (:class:`~toolsearch_cli.providers.client.LiveError`) returns
    what was done with ``failure`` set; one that fails before its first request raises.
    """
    settings.check()
    progress = progress or Progress()
    if settings.live:
        return _run_live(settings, progress)
    if settings.replay is not None:
        return SimulationResult(_replay_runs(settings, settings.replay))
    assert settings.script is not None  # settings.check(): a script or a recording
    return SimulationResult(_script_runs(settings, settings.script))


def _script_runs(settings: SimulateSettings, path: str) -> list[Transcript]:
    from ..catalog import refuse_unnamed_code
    from .runner import run_script
    from .script import load_script

    values = settings.run_values()
    parsed = load_script(path)
    if values["catalog"] is None:
        refuse_unnamed_code(parsed.catalog, "the script", path, parsed.catalog_lines)
    return [run_script(parsed, merged_settings(parsed, {**values, "policy": name})) for name in settings.policies]


def _replay_runs(settings: SimulateSettings, path: str) -> list[Transcript]:
    """A recording replayed once per policy; a toolsearch transcript (e.g. a ``--record`` file)
    replays with its own settings where the options leave them out."""
    from ..catalog import refuse_unnamed_code
    from .live import recorded_transcript, recording_settings
    from .replay import load_conversation, replay
    from .runner import build_engine

    values = settings.run_values()
    if settings.mode == "agent" or settings.state_file:
        raise UsageError("--replay derives the state from the recorded messages (chat mode); drop --mode agent/--state")
    messages = load_conversation(path)
    recorded = recorded_transcript(path)
    defaults = recording_settings(recorded) if recorded is not None else {}
    if values["catalog"] is None:
        refuse_unnamed_code(defaults.get("catalog", ()), "the recording", path)
    error = recorded.get("error") if recorded is not None else None
    error = error if isinstance(error, str) else None
    requests = recorded.get("requests") if recorded is not None else None
    requests = requests if isinstance(requests, list) else []  # a hostile recording: no figures
    recorded_live = [r.get("live") if isinstance(r, dict) else None for r in requests]
    transcripts = []
    for name in settings.policies:
        merged = {**values, "policy": name}
        keys = ("catalog", "policy", "max_active", "ranker")
        from_recording = [k for k in keys if merged.get(k) is None and k in defaults]
        merged.update({k: defaults[k] for k in from_recording})
        merged["context"] = {**defaults.get("context", {}), **values["context"]}
        try:
            run = merged_settings(None, merged)
            engine = build_engine(run, defaults.get("resident", ()), path)
        except ToolsearchError as exc:  # a bad setting read from the recording: name the recording
            if exc.file is None and (exc.field in from_recording or exc.field == "context"):
                exc.file = path
            raise
        transcripts.append(replay(messages, engine, run, path, error=error, live=recorded_live))
    return transcripts


@dataclass(slots=True)
class _Endpoint:
    """Where a live run's model is: the client class of its API, the URL, the key and its variable."""

    client_type: type[LiveClient]
    url: str
    key_env: str
    api_key: str | None = field(repr=False)


def _endpoint(live: LiveSettings) -> _Endpoint:
    """The API, URL and key a live run uses; the URL's credentials and the key are registered as
    secrets before anything can print or write them."""
    from ..providers import client_class
    from ..redaction import register, register_url

    client_type = client_class(live.api or "openai-chat")
    key_env = client_type.default_key_env if live.api_key_env == DEFAULT_KEY_ENV else live.api_key_env
    url = live.base_url or os.environ.get(client_type.base_url_env) or client_type.default_base_url
    register_url(url)
    check_key_variable(key_env)
    api_key = live.api_key or os.environ.get(key_env) or None
    register(api_key)
    return _Endpoint(client_type, url, key_env, api_key)


def _run_live(settings: SimulateSettings, progress: Progress) -> SimulationResult:
    from ..catalog import refuse_unnamed_code
    from ..providers.client import LiveError
    from ..redaction import clear_text_warning, shown_url
    from .live import Recorder, run_live
    from .script import load_script
    from .settings import user_messages

    live = settings.live_settings
    endpoint = _endpoint(live)  # the secrets first: from here on nothing printed or written can show them
    live.check(settings.policies)
    values = settings.run_values()
    parsed = load_script(settings.script) if settings.script is not None else None
    if parsed is not None and values["catalog"] is None:
        refuse_unnamed_code(parsed.catalog, "the script", parsed.file, parsed.catalog_lines)
    user_messages(parsed, live.prompt)  # the one-line error before any request
    url = endpoint.url
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"--base-url must start with http:// or https://, not {shown_url(url)!r}", field="base_url")
    has_key = endpoint.api_key is not None
    insecure = clear_text_warning(url, f"the API key (${endpoint.key_env})") if has_key else None
    warnings = [insecure] if insecure is not None else []
    if insecure is not None and progress.warning is not None:
        progress.warning(insecure)
    run = merged_settings(parsed, {**values, "policy": settings.policies[0]})
    answered = [0]  # requests answered so far: a retry belongs to the next one

    def on_request(record: RequestRecord) -> None:
        answered[0] += 1
        if progress.request is not None:
            progress.request(record)

    def on_retry(status: int, attempt: int, delay: float) -> None:
        if progress.retry is not None:
            progress.retry(answered[0] + 1, status, attempt, live.retries, delay)

    options, client = live_parts(endpoint, live, on_retry)
    recorder = Recorder(live.record) if live.record else None
    if progress.live_start is not None:
        progress.live_start(parsed.name if parsed else "--prompt", run, options, has_key)
    source = settings.script or "--prompt"
    failure: LiveError | None = None
    try:
        transcript = run_live(client, run, options, script=parsed, prompt=live.prompt, system=live.system,
                              source=source, recorder=recorder, on_request=on_request)  # fmt: skip
    except LiveError as exc:
        partial = getattr(exc, "transcript", None)
        if partial is None:
            raise
        failure, transcript = exc, partial
    return SimulationResult([transcript], failure=failure, record=live.record, warnings=warnings)


class _SentAndRecorded(TypedDict):
    """The values both the recorded :class:`~.live.LiveOptions` and the live client take."""

    model: str
    api_key_env: str
    temperature: float | None
    tool_choice: str | None
    timeout: float
    retries: int
    max_tokens: int | None


def live_parts(
    endpoint: _Endpoint, live: LiveSettings, on_retry: Callable[[int, int, float], None] | None = None
) -> tuple[LiveOptions, LiveClient]:
    """What a live run records about its endpoint, and the client that talks to it, from one list
    of the values both take (each :class:`LiveSettings` field is read once, here); the client
    checks the transport values (timeout, retries, backoff, reply size)."""
    from ..redaction import shown_url
    from .live import LiveOptions

    both: _SentAndRecorded = {
        "model": live.model or "",
        "api_key_env": endpoint.key_env,
        "temperature": live.temperature,
        "tool_choice": live.sent_tool_choice,
        "timeout": live.timeout,
        "retries": live.retries,
        "max_tokens": live.max_tokens,
    }
    url = endpoint.url.rstrip("/")
    options = LiveOptions(
        **both,
        base_url=shown_url(url),  # printed and recorded: never credentials
        max_iterations=live.max_iterations,
        api=endpoint.client_type.api,
    )
    client = endpoint.client_type(
        **both,
        base_url=url,
        api_key=endpoint.api_key,
        backoff=live.retry_backoff,
        on_retry=on_retry,
        max_reply_bytes=live.max_reply_bytes,
    )
    return options, client


__all__ = ["COMPARISON_FORMAT", "Progress", "SimulationResult", "run_simulation"]
