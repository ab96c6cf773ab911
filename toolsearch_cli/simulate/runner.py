"""Scripted simulations: the script is the model, run through the one conversation loop.

The engine a run's :class:`~toolsearch_cli.simulate.settings.Settings` build (the settings and
their merging live in :mod:`~toolsearch_cli.simulate.settings`), the checks that
every name a script uses exists, and :class:`ScriptedModel`. The loop itself (snapshots, protocol
checks, ``toolSearch``, results, expectations, state) is :mod:`toolsearch_cli.simulate.loop`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..catalog import load_catalog
from ..disclosure.engine import DisclosureEngine, RequestSnapshot
from ..errors import ToolsearchError
from ..model import Tool
from ..tokens import get_counter
from .loop import Reply, check_state_mode, new_transcript, run_conversation
from .script import Script, ScriptedCall, Step
from .settings import Settings
from .transcript import RequestRecord, Transcript


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
            embed=settings.embed,
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
    "ScriptedModel",
    "build_engine",
    "check_expected_names",
    "check_mock_names",
    "run_script",
]
