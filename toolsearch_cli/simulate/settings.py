"""What a simulation is asked to do, as typed values, and the checks that they fit together.

:class:`SimulateSettings` (with :class:`LiveSettings` for a live model) is what ``toolsearch
simulate`` builds from its options and what :func:`~toolsearch_cli.simulate.run.run_simulation`
runs; every check of an option's value or of options that do not fit together is here, once
(the live clients check their own transport values: timeout, retries, backoff, reply size).
:class:`Settings` is one run's resolved settings: command line over script (or recording) over
defaults, made by :func:`merged_settings`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from ..bounded import parse_size
from ..errors import UsageError
from ..providers.client import MAX_REPLY_BYTES
from ..search.base import DEFAULT_MAX_RESULTS

if TYPE_CHECKING:
    from .script import Script

#: A tool result bigger than this (1 MB, a quarter of a million tokens: more than any model's
#: context) is not sent: the model gets an error result saying so, and the request a warning.
MAX_RESULT_BYTES = 1024 * 1024
#: Model requests per user message at most (``--max-iterations``).
DEFAULT_MAX_ITERATIONS = 10
#: ``--tool-choice`` values (``omit``: not sent).
TOOL_CHOICES = ("auto", "required", "none", "omit")
#: The key variable's default; with another API, that API's own variable stands in for it.
DEFAULT_KEY_ENV = "OPENAI_API_KEY"

_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _size(value: int | str, option: str, *, check_bytes: bool = True) -> int:
    """A size given as bytes or as text such as ``4MB`` (bytes are checked here unless the one who
    uses them checks them: ``check_bytes=False``)."""
    if isinstance(value, int):
        if check_bytes and value < 1:
            raise UsageError(f"{option} must be at least 1 byte, not {value}", field=option)
        return value
    return parse_size(value, option)


# -- one run's resolved settings --------------------------------------------------------------------


@dataclass(slots=True)
class Settings:
    """How to run: command-line values win over the script's, which win over these defaults."""

    catalog: list[str] | None = None
    mode: str = "chat"
    policy: str = "latest"
    max_active: int | None = None
    context: dict[str, str] = field(default_factory=dict)
    ranker: str = "default"
    max_results: int = DEFAULT_MAX_RESULTS
    state_file: str | None = None
    execute: bool = False
    counter: str = "cl100k_base"
    #: The largest tool result sent to the model (``--max-result-size``); a bigger one is an error result.
    max_result_bytes: int = MAX_RESULT_BYTES


def merged_settings(script: Script | None, cli: Mapping[str, Any]) -> Settings:
    """Command-line options (``None``: not given) over script values over defaults."""
    base = Settings()
    from_script: dict[str, Any] = {}
    if script is not None:
        from_script = {
            "catalog": script.catalog or None,
            "mode": script.mode,
            "policy": script.policy,
            "max_active": script.max_active,
            "ranker": script.ranker,
            "max_results": script.max_results,
        }
    values: dict[str, Any] = {}
    for key in ("catalog", "mode", "policy", "max_active", "ranker", "max_results"):
        for candidate in (cli.get(key), from_script.get(key)):
            if candidate is not None:
                values[key] = candidate
                break
    context = dict(script.context) if script else {}
    context.update(cli.get("context") or {})
    return Settings(
        catalog=values.get("catalog"),
        mode=values.get("mode", base.mode),
        policy=values.get("policy", base.policy),
        max_active=values.get("max_active"),
        context=context,
        ranker=values.get("ranker", base.ranker),
        max_results=values.get("max_results", base.max_results),
        state_file=cli.get("state_file"),
        execute=bool(cli.get("execute")),
        counter=cli.get("counter") or base.counter,
        max_result_bytes=cli.get("max_result_bytes") or base.max_result_bytes,
    )


# -- what a simulation is asked to do ---------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class LiveSettings:
    """A live model: where it is, how to ask it, and what to tell it (``simulate --live``).

    ``api_key`` is read from ``$api_key_env`` when not given; it is never shown by ``repr`` and
    never recorded (only the variable's name is). The credentials a ``base_url`` may carry are
    masked in ``repr``.
    """

    #: The user's message (else the script's user turns).
    prompt: str | None = None
    #: ``None``: the API's variable (``$OPENAI_BASE_URL``, ``$ANTHROPIC_BASE_URL``), else its public URL.
    base_url: str | None = None
    model: str | None = None
    #: The name of the variable holding the key (``OPENAI_API_KEY``: the API's own variable).
    api_key_env: str = DEFAULT_KEY_ENV
    api_key: str | None = field(default=None, compare=False)
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    temperature: float | None = None
    tool_choice: str = "auto"
    timeout: float = 60.0
    retries: int = 3
    retry_backoff: float = 1.0
    #: A file the run is recorded to after every request.
    record: str | None = None
    max_tokens: int | None = None
    #: The system message (replaces the script's).
    system: str | None = None
    #: ``openai-chat`` (when ``None``), ``openai-responses`` or ``anthropic``.
    api: str | None = None
    #: Bytes, or text such as ``4MB``.
    max_reply_size: int | str = MAX_REPLY_BYTES

    def __repr__(self) -> str:
        from ..redaction import shown_url

        shown: list[str] = []
        for f in fields(self):
            if f.name == "api_key":
                shown.append(f"api_key={'<set>' if self.api_key else None}")
                continue
            value = getattr(self, f.name)
            if f.name == "base_url" and value is not None:
                value = shown_url(value)
            shown.append(f"{f.name}={value!r}")
        return f"LiveSettings({', '.join(shown)})"

    #: Options that only a live run takes, by field (the non-live check names them).
    LIVE_ONLY = (
        ("prompt", "--prompt"),
        ("base_url", "--base-url"),
        ("model", "--model"),
        ("record", "--record"),
        ("max_tokens", "--max-tokens"),
        ("system", "--system"),
        ("api", "--api"),
    )

    def check(self, policies: Sequence[str | None]) -> None:
        """The one-line errors of values a live run cannot take (the key's variable is checked
        when the key is read, the URL after the script: :func:`~.run.run_simulation`)."""
        if len(policies) > 1:
            raise UsageError(
                "--live runs one policy; to compare, --record FILE then --replay FILE --policy latest,cumulative",
                field="policy",
            )
        if not self.model or not self.model.strip():
            raise UsageError("--live needs --model NAME (the model the server should run)", field="model")
        if self.max_iterations < 1:
            raise UsageError(f"--max-iterations must be at least 1, not {self.max_iterations}", field="max_iterations")
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise UsageError(f"--temperature must be between 0 and 2, not {self.temperature:g}", field="temperature")
        if self.tool_choice not in TOOL_CHOICES:
            raise UsageError(
                f"--tool-choice must be auto, required, none or omit, not {self.tool_choice!r}", field="tool_choice"
            )
        if self.max_tokens is not None and self.max_tokens < 1:
            raise UsageError(f"--max-tokens must be at least 1, not {self.max_tokens}", field="max_tokens")
        self.max_reply_bytes  # noqa: B018 - the text's one-line error; the client checks the bytes
        if self.system is not None and not self.system.strip():
            raise UsageError("--system is blank: give the system message, or leave it out", field="system")

    @property
    def max_reply_bytes(self) -> int:
        """``max_reply_size`` in bytes (the live client refuses fewer than 1)."""
        return _size(self.max_reply_size, "--max-reply-size", check_bytes=False)

    @property
    def sent_tool_choice(self) -> str | None:
        """``tool_choice`` as sent (``None``: not sent)."""
        return None if self.tool_choice == "omit" else self.tool_choice


def user_messages(script: Script | None, prompt: str | None) -> list[str]:
    """The user's messages of a live run: ``prompt`` when given, else every turn's ``user`` of the script."""
    if prompt is not None:
        if not prompt.strip():
            raise UsageError("--prompt is blank: give the user's message", field="prompt")
        return [prompt]
    if script is None:
        raise UsageError("--live needs the user's message: --prompt TEXT or a SCRIPT", field="prompt")
    return [turn.user for turn in script.turns]


def check_key_variable(name: str) -> None:
    """``--api-key-env`` names a variable; anything else may be the key itself: it is masked from
    then on, and the error does not show it."""
    if not _VARIABLE.fullmatch(name):
        from ..redaction import register

        register(name)
        raise UsageError(
            "--api-key-env takes the name of an environment variable (letters, digits and _), "
            "not a key; the value given is not shown",
            field="api_key_env",
        )


@dataclass(frozen=True, slots=True)
class SimulateSettings:
    """A simulation: a SCRIPT run (scripted or with a live model), or a recording replayed.

    ``None`` means "not given": the script's (or recording's) value, else the default. ``policy``
    may name several policies (``"latest,cumulative"``) to compare them. :meth:`check` gives the
    one-line error of the first value or combination that cannot run.
    """

    script: str | None = None
    #: A recorded conversation to replay instead of a script.
    replay: str | None = None
    catalog: Sequence[str] | None = None
    mode: str | None = None
    policy: str | None = None
    max_active: int | None = None
    #: Attributes, or ``key=value`` texts as on the command line.
    context: Mapping[str, str] | Sequence[str] = ()
    state_file: str | None = None
    execute: bool = False
    ranker: str | None = None
    counter: str = "cl100k_base"
    #: Bytes, or text such as ``1MB``.
    max_result_size: int | str = MAX_RESULT_BYTES
    #: A live model answers (with ``live_settings``) instead of the script.
    live: bool = False
    live_settings: LiveSettings = field(default_factory=LiveSettings)

    @property
    def policies(self) -> list[str | None]:
        """The policies to run, in order (``[None]``: the script's, else the default)."""
        return [p.strip() for p in (self.policy or "").split(",") if p.strip()] or [None]

    def check(self) -> None:
        """Raise the one-line error (exit 2) of the first option that cannot run, or of two that do not fit."""
        live = self.live_settings
        if self.live:
            if self.replay is not None:
                raise UsageError("--live asks a model; --replay reads a recording: use one of them")
            if self.script is None and live.prompt is None:
                user_messages(None, None)  # its one-line error
        else:
            given = [option for name, option in LiveSettings.LIVE_ONLY if getattr(live, name) is not None]
            if given:
                raise UsageError(f"{given[0]} is for live runs: add --live", field=given[0].lstrip("-"))
            if (self.script is None) == (self.replay is None):
                raise UsageError("give a SCRIPT to simulate, or --replay FILE (not both)")
        from ..disclosure.policy import POLICY_BY_NAME, get_policy

        policies = self.policies
        for name in policies:
            if name is not None and name not in POLICY_BY_NAME:
                get_policy(name)  # raises the one-line error with a suggestion
        if len(policies) > 1 and self.state_file:
            raise UsageError("--state cannot be shared by several policies; compare without --state")
        if self.max_active is not None and self.max_active < 1:
            raise UsageError(f"--max-active must be at least 1, not {self.max_active}", field="max_active")
        if self.mode is not None and self.mode not in ("chat", "agent"):
            raise UsageError(f"unknown mode {self.mode!r}; choose from chat, agent", field="mode")
        self.run_values()

    def run_values(self) -> dict[str, Any]:
        """The values given, for :func:`merged_settings` (``None``: the script's or the default)."""
        from .script import parse_context

        context = self.context if isinstance(self.context, Mapping) else parse_context(list(self.context))
        return {
            "catalog": list(self.catalog) if self.catalog else None,
            "mode": self.mode,
            "max_active": self.max_active,
            "context": dict(context),
            "state_file": self.state_file,
            "execute": self.execute,
            "ranker": self.ranker,
            "counter": self.counter,
            "max_result_bytes": _size(self.max_result_size, "--max-result-size"),
        }


__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "MAX_REPLY_BYTES",
    "MAX_RESULT_BYTES",
    "LiveSettings",
    "Settings",
    "SimulateSettings",
    "check_key_variable",
    "merged_settings",
    "user_messages",
]
