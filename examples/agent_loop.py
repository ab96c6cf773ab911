"""An agent loop of your own with progressive disclosure, on the OpenAI SDK (``pip install openai``).

    python examples/agent_loop.py --base-url http://127.0.0.1:8080/v1 --model local "Weather in Shanghai?"
    python examples/agent_loop.py --mode agent --state run.json ...   # disclosed tools kept in run.json

Each request carries only the resident tools, ``toolSearch`` and what the model's searches
disclosed; ``toolSearch`` calls are answered by :class:`toolsearch_cli.agent.ToolSearch`, other
calls are checked (sent in this request? arguments fit the schema?) and then run here. The tests
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


def agent_loop(client: Any, model: str, ts: ToolSearch, user: str, max_requests: int = 8) -> str:
    """Ask ``model`` until it answers without tool calls; returns the answer."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
    for _ in range(max_requests):
        request = ts.request(messages)
        response = client.chat.completions.create(model=model, messages=request.messages, tools=request.tools("openai"))
        message = response.choices[0].message
        calls = message.tool_calls or []
        messages.append(
            {
                "role": "assistant",
                "content": message.content or "",
                **({"tool_calls": [c.model_dump() for c in calls]} if calls else {}),
            }
        )
        if not calls:
            return message.content or ""
        for call in calls:
            handled = ts.handle(call.function.name, call.function.arguments, request)
            content = handled.content if handled.content is not None else run_tool(handled)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt")
    parser.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"))
    parser.add_argument("--model", required=True)
    parser.add_argument("--catalog", default=CATALOG)
    parser.add_argument("--mode", choices=("chat", "agent"), default="chat")
    parser.add_argument("--state", help="with --mode agent: run-state file, restored when present and saved at the end")
    args = parser.parse_args(argv)
    if args.state and args.mode != "agent":  # as `toolsearch simulate --state`: chat mode keeps no state
        parser.error("--state keeps agent-mode run state; use it with --mode agent")

    from openai import OpenAI

    client = OpenAI(base_url=args.base_url, api_key=os.environ.get("OPENAI_API_KEY") or "no-key", max_retries=0)
    ts = ToolSearch.resume(args.state, args.catalog) if args.state else ToolSearch(args.catalog, mode=args.mode)
    answer = agent_loop(client, args.model, ts, args.prompt)
    if args.state:
        ts.save_state(args.state)
    print(answer)
    return 0 if answer else 1


if __name__ == "__main__":
    sys.exit(main())
