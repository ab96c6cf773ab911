"""An agent loop of your own with progressive disclosure, on the OpenAI SDK (``pip install openai``).

    python examples/agent_loop.py --base-url http://127.0.0.1:8080/v1 --model local "Weather in Shanghai?"
    python examples/agent_loop.py --mode agent --state run.json ...   # disclosed tools kept in run.json

Each request carries only the resident tools, ``toolSearch`` and what the model's searches
disclosed; ``toolSearch`` calls are answered by :class:`toolsearch_cli.agent.ToolSearch`, other
calls are checked (sent in this request? arguments fit the schema?) and then run here. Without
an answer it says why it stopped in one line on stderr (an empty reply, the step limit and the
calls refused, a server error) and exits 1. The tests
run this file against a real loopback Chat Completions server (``tests/api/test_agent_api.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolsearch_cli.agent import Handled, ToolSearch

CATALOG = str(Path(__file__).resolve().parent.parent / "catalogs" / "demo")


def get_weather(city: str, **_: Any) -> dict[str, Any]:
    """This app's implementation of the catalog's ``getWeather`` (a real app calls a weather API)."""
    return {"city": city, "temperature": 18, "condition": "cloudy"}


#: The tools this app implements; any other tool answers with its catalog ``mock`` if it has one.
IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {"getWeather": get_weather}


def run_tool(handled: Handled) -> str:
    """Run a call that ToolSearch accepted (it was sent in the request; its arguments fit)."""
    implementation = IMPLEMENTATIONS.get(handled.name)
    if implementation is not None:
        return json.dumps(implementation(**handled.arguments), ensure_ascii=False)
    if handled.tool is not None and handled.tool.mock is not None:
        return json.dumps(handled.tool.mock, ensure_ascii=False)
    return json.dumps({"error": f"{handled.name} is not implemented by this app"})


class Outcome:
    """How the loop ended: the model's ``answer``, or why there is none (``stopped``, one line);
    ``refused``: the calls ToolSearch refused (``name: error``), which the model was told about."""

    def __init__(self) -> None:
        self.answer = ""
        self.stopped = ""
        self.refused: list[str] = []


def agent_loop(client: Any, model: str, ts: ToolSearch, user: str, max_requests: int = 8) -> Outcome:
    """Ask ``model`` until it answers without tool calls, at most ``max_requests`` times."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
    outcome = Outcome()
    for _ in range(max_requests):
        request = ts.request(messages)
        response = client.chat.completions.create(model=model, messages=request.messages, tools=request.tools("openai"))
        choices = getattr(response, "choices", None)
        if not choices:
            outcome.stopped = "the model server sent a reply without choices"
            return outcome
        message, finish = choices[0].message, choices[0].finish_reason
        content = getattr(message, "content", None)
        if not isinstance(content, str | None):
            outcome.stopped = f"the model sent a malformed reply (content is {type(content).__name__}, not text)"
            return outcome
        calls = getattr(message, "tool_calls", None) or []
        messages.append(
            {
                "role": "assistant",
                "content": content or "",
                **({"tool_calls": [c.model_dump() for c in calls]} if calls else {}),
            }
        )
        if not calls:
            outcome.answer = content if content and content.strip() else ""
            if not outcome.answer:
                cut = " (cut off by the token limit)" if finish == "length" else ""
                outcome.stopped = f"the model sent an empty reply: no text, no tool calls (finish_reason {finish}){cut}"
            return outcome
        for call in calls:
            handled = ts.handle(call.function.name, call.function.arguments, request)
            if handled.error and not handled.is_search:
                outcome.refused.append(f"{handled.name}: {handled.error}")
            content = handled.content if handled.content is not None else run_tool(handled)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    outcome.stopped = f"no answer after {max_requests} requests (the step limit): the model kept calling tools"
    if outcome.refused:
        outcome.stopped += f"; {len(outcome.refused)} calls refused, the last {outcome.refused[-1]}"
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt")
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"))
    parser.add_argument("--model", required=True)
    parser.add_argument("--catalog", default=CATALOG)
    parser.add_argument("--mode", choices=("chat", "agent"), default="chat")
    parser.add_argument("--state", help="with --mode agent: run-state file, restored when present and saved at the end")
    parser.add_argument("--max-requests", type=int, default=8, help="model requests at most (the step limit)")
    args = parser.parse_args(argv)
    if args.state and args.mode != "agent":  # as `toolsearch simulate --state`: chat mode keeps no state
        parser.error("--state keeps agent-mode run state; use it with --mode agent")

    from openai import OpenAI

    client = OpenAI(base_url=args.base_url, api_key=os.environ.get("OPENAI_API_KEY") or "no-key", max_retries=0)
    ts = ToolSearch.resume(args.state, args.catalog) if args.state else ToolSearch(args.catalog, mode=args.mode)
    import openai

    try:
        outcome = agent_loop(client, args.model, ts, args.prompt, max_requests=args.max_requests)
    except openai.APIError as exc:  # unreachable, refused (HTTP 4xx/5xx), not a completion
        print(f"agent_loop: stopped: the model server failed: {' '.join(str(exc).split())[:300]}", file=sys.stderr)
        return 1
    if args.state:
        ts.save_state(args.state)
    if not outcome.answer:  # why there is no answer, in one line (never an empty line and a bare exit 1)
        print(f"agent_loop: stopped: {outcome.stopped}", file=sys.stderr)
        return 1
    print(outcome.answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
