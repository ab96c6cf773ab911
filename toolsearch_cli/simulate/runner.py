"""Scripted simulations: the script is the model, run through the one conversation loop.

Settings (command line over script over defaults), the engine they build, the checks that every
name a script uses exists, and :class:`ScriptedModel`. The loop itself (snapshots, protocol
checks, ``toolSearch``, results, expectations, state) is :mod:`toolsearch_cli.simulate.loop`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..arguments import check_arguments
from ..catalog import load_catalog
from ..disclosure.engine import DisclosureEngine, RequestSnapshot
from ..errors import ToolsearchError
from ..model import Tool
from ..search.base import DEFAULT_MAX_RESULTS
from ..tokens import get_counter
from .loop import Model, Reply, check_state_mode, new_transcript, run_conversation
from .script import Script, ScriptedCall, Step
from .transcript import RequestRecord, Transcript

#: A tool result bigger than this (1 MB, a quarter of a million tokens: more than any model's
#: context) is not sent: the model gets an error result saying so, and the request a warning.
MAX_RESULT_BYTES = 1024 * 1024


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


def build_engine(settings: Settings, resident: Sequence[str] = (), source: str | None = None) -> DisclosureEngine:
    """The engine for ``settings``; ``source`` (the script or recording that named ``resident``)
    is the file an unknown resident tool is reported against."""
    catalog = load_catalog(settings.catalog)
    try:
        return DisclosureEngine(
            catalog,
            context=settings.context,
            policy=settings.policy,
            max_active=settings.max_active,
            ranker=settings.ranker,
            resident=resident,
            default_max_results=settings.max_results,
            counter=get_counter(settings.counter),
        )
    except ToolsearchError as exc:
        if exc.field == "resident" and exc.file is None:
            exc.file = source
        raise


# -- the scripted model ----------------------------------------------------------------------------


class ScriptedModel:
    """The script as a model: each turn's steps answer its requests in order, one step per request.

    Business tools answer with the step's ``result``, else the script's ``mocks``, else (through
    the loop) the Python function with ``--execute``, else the catalog's ``mock``.
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self._steps: Iterator[Step] = iter(())
        self._last: Step | None = None
        self._turn = 0

    def start(self) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.script.system}] if self.script.system else []

    def turns(self) -> Iterator[list[dict[str, Any]]]:
        for number, turn in enumerate(self.script.turns, 1):
            self._turn, self._steps = number, iter(turn.steps)
            yield [{"role": "user", "content": turn.user}]

    def reply(self, snapshot: RequestSnapshot) -> Reply:
        step = self._last = next(self._steps)
        return Reply(content=step.say, calls=list(step.calls), expectations=list(step.expect), line=step.line)

    def canned(self, call: ScriptedCall, tool: Tool) -> tuple[bool, Any]:
        if call.name in self.script.mocks:
            return True, self.script.mocks[call.name]
        return False, None

    def more(self, reply: Reply, requests: int) -> bool:
        return requests < len(self.script.turns[self._turn - 1].steps)

    def finish_turn(self, records: Sequence[RequestRecord]) -> None:
        if self._last is not None and self._last.calls:
            records[-1].warnings.append(f"turn {self._turn} ends with tool calls: the model never gave a final answer")

    def unanswered(self, record: RequestRecord) -> None:  # pragma: no cover - every scripted request has a step
        record.warnings.append("the script has no reply for this request")


# -- running a script -------------------------------------------------------------------------------


def run_script(script: Script, settings: Settings, engine: DisclosureEngine | None = None) -> Transcript:
    """Run every turn of the script through the engine and return the transcript."""
    check_state_mode(settings)  # before the catalog is loaded
    engine = engine or build_engine(settings, script.resident, script.file)
    check_expected_names(script, engine)
    check_mock_names(script, engine)
    transcript = new_transcript(script.file, "script", settings, engine)
    transcript.name = script.name
    return run_conversation(ScriptedModel(script), engine, settings, transcript)


#: Protocol error kinds an ``expect: {protocol_errors: [...]}`` may declare.
PROTOCOL_ERROR_KINDS = ("unknown-tool", "not-visible", "malformed-arguments", "malformed-tool-call")


def check_expected_names(script: Script, engine: DisclosureEngine) -> None:
    """Every tool, group and protocol error an ``expect`` names must exist: a misspelt name would
    make ``not_visible`` pass forever and ``visible`` fail for the wrong reason."""
    from ..errors import did_you_mean
    from .script import ScriptError

    tools = [t.name for t in engine.catalog.tools] + [t.name for t in engine.prompt_tools] + [engine.search_tool_name]
    in_catalog = f"the catalog ({', '.join(engine.catalog.sources)})"
    known: dict[str, tuple[list[str], str, str]] = {
        "visible": (tools, "tool", in_catalog),
        "not_visible": (tools, "tool", in_catalog),
        "hits": (tools, "tool", in_catalog),
        "groups": ([g.name for g in engine.catalog.groups], "group", in_catalog),
        "protocol_errors": (list(PROTOCOL_ERROR_KINDS), "protocol error", "the known kinds"),
    }
    for turn in script.turns:
        for step in turn.steps:
            for e in step.expect:
                for key, (choices, what, where) in known.items():
                    for name in getattr(e, key) or ():
                        if name not in choices:
                            raise ScriptError(
                                f"'expect' names {what} {name!r}{did_you_mean(name, choices)}, which is not in {where}",
                                file=script.file,
                                line=e.line or step.line,
                                field=key,
                            )


def check_mock_names(script: Script, engine: DisclosureEngine) -> None:
    """Every tool the script's ``mocks`` answers for must exist (a misspelt one would answer nothing)."""
    from ..errors import did_you_mean
    from .script import ScriptError

    tools = [t.name for t in engine.catalog.tools]
    for name in script.mocks:
        if name not in tools:
            raise ScriptError(
                f"'mocks' names tool {name!r}{did_you_mean(name, tools)}, which is not in the catalog "
                f"({', '.join(engine.catalog.sources)})",
                file=script.file,
                line=script.mocks_line,
                field="mocks",
            )


__all__ = [
    "PROTOCOL_ERROR_KINDS",
    "Model",
    "Reply",
    "ScriptedModel",
    "Settings",
    "build_engine",
    "check_arguments",
    "check_expected_names",
    "check_mock_names",
    "merged_settings",
    "run_script",
]
