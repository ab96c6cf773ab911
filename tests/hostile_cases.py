"""Hostile inputs for toolsearch, and the contract every command must keep on them.

A *case* is a command line plus the files it reads (catalogs in the five formats, ``.sim.yaml``
scripts, replay logs, eval baselines, run-state files), each made from a valid seed by hostile
mutations: values swapped for NaN, 5,000-digit integers, 100,000-level nesting, alias bombs,
``$ref`` cycles and fan-out, YAML dates and binary, control and escape characters, Rich markup,
wrong types; and text damage (truncation, stray bytes). Generators take a ``random.Random`` so
hypothesis can drive them (``st.randoms()``) and a script can replay a fixed seed.

Cases run in batches in a child process (:mod:`tests.hostile_driver`) under a wall-clock timeout
and an address-space limit. The contract (:func:`violations`): exit code 0, 1 or 2; no traceback
or "internal error"; at most one ``error:`` line on stderr, exactly one when the exit code is 2
(warnings may come before it); valid JSON on stdout when ``--format json`` succeeded (exit 0 or 1);
no control or invisible character printed raw (outside ``catalog convert``'s catalog).

``python -m tests.hostile_cases [N] [SEED]`` prints how many of N cases per target keep the
contract (set ``HOSTILE_PYTHONPATH`` to measure another checkout, e.g. main before a change).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Seconds a batch may run before it counts as a hang.
BATCH_TIMEOUT = 120
#: Address space a batch may use (bytes).
MEMORY_LIMIT = 3 * 1024**3

# ---------------------------------------------------------------- hostile atoms


class Raw:
    """Text spliced verbatim into a serialised document (what no serialiser would write)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _bomb(levels: int = 9) -> str:
    parts = ["&a0 [x, x, x, x, x, x, x, x, x, x]"]
    parts += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "[" + ", ".join(parts) + "]"


JSON_RAW = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "9" * 5000,
    "[" * 150 + "]" * 150,
    "[" * 5000 + "]" * 5000,
    "[" * 100_000 + "]" * 100_000,
    '{"a": ' * 400 + "1" + "}" * 400,
    '{"k": 1, "k": 2}',
    '"\\ud800"',
    '"\\u0000\\u001b[31m"',
]
YAML_RAW = [
    ".nan",
    ".inf",
    "-.inf",
    "2024-05-01",
    "2024-05-01 10:00:00",
    "!!binary aGVsbG8=",
    "!!python/object/apply:os.system [echo hi]",
    "9" * 5000,
    "[" * 150 + "]" * 150,
    "[" * 3000 + "]" * 3000,
    _bomb(),
    "{1: a, true: b}",
    "*undefined",
    '"\\x07bell"',
]
STRINGS = [
    "",
    " ",
    "\x1b]0;owned\x07",
    "\x1b[2J\x1b[31mred",
    "[bold]markup[/bold]",
    "[/x]",
    "[link=http://evil]x[/link]",
    ":smile:",
    "\u202eevil",
    "getWe\u200bather",
    "soft\u00adhyphen \u2060joined\ufeff",
    "tag\U000e0041\U000e0042",
    "x" * 100_000,
    "名前" * 50,
    "a\nb\rc",
    "#/$defs/Nope",
    "null",
    "../../etc/passwd",
]
SCALARS: list[Any] = [None, True, False, 0, -1, 2**70, 1.5, -0.0, [], {}, [[[]]], {"": {}}]


def hostile_value(rng: random.Random, yaml: bool) -> Any:
    """One hostile value: raw text (NaN, huge, deep, bombs ...), a nasty string or a wrong type."""
    roll = rng.random()
    if roll < 0.35:
        return Raw(rng.choice(YAML_RAW if yaml else JSON_RAW))
    if roll < 0.65:
        return rng.choice(STRINGS)
    if roll < 0.85:
        return rng.choice(SCALARS)
    return {"$ref": rng.choice(["#", "#/", "#/components/schemas/Node", "#/$defs/Node", "http://x/y", 5])}


# ---------------------------------------------------------------- serialising with raw splices


def serialise(doc: Any, yaml: bool) -> str:
    """``doc`` as JSON (or YAML, block style), with every :class:`Raw` spliced in verbatim."""
    raws: list[str] = []

    def mark(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(value.text)
            return f"@@RAW{len(raws) - 1}@@"
        if isinstance(value, dict):
            return {str(k): mark(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mark(v) for v in value]
        return value

    marked = mark(doc)
    if yaml:
        import yaml as pyyaml

        text = pyyaml.safe_dump(marked, allow_unicode=True, sort_keys=False, width=10_000)
    else:
        text = json.dumps(marked, ensure_ascii=False, indent=1)
    for i, raw in enumerate(raws):
        for quoted in (f'"@@RAW{i}@@"', f"'@@RAW{i}@@'", f"@@RAW{i}@@"):
            text = text.replace(quoted, raw)
    return text


# ---------------------------------------------------------------- structural mutations


def mutate(doc: Any, rng: random.Random, yaml: bool, rounds: int = 3) -> Any:
    """A copy of ``doc`` with up to ``rounds`` hostile changes at random places."""
    doc = json.loads(json.dumps(doc))
    for _ in range(rng.randint(1, rounds)):
        doc = _mutate_once(doc, rng, yaml)
    return doc


def _mutate_once(node: Any, rng: random.Random, yaml: bool, depth: int = 0) -> Any:
    children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
    if not children or rng.random() < 0.25 or depth > 12:
        op = rng.random()
        if op < 0.6:
            return hostile_value(rng, yaml)
        if op < 0.7 and isinstance(node, dict) and node:
            node = dict(node)
            node.pop(rng.choice(list(node)))
            return node
        if op < 0.8:
            return [node]
        if op < 0.9:
            return json.dumps(node, default=lambda raw: raw.text)[:200]
        return {"type": {"a": 1}, "properties": node, "required": "x"}
    key, child = rng.choice(children)
    node = dict(node) if isinstance(node, dict) else list(node)
    node[key] = _mutate_once(child, rng, yaml, depth + 1)
    if isinstance(node, dict) and rng.random() < 0.1:
        node[rng.choice(STRINGS[:9])] = hostile_value(rng, yaml)
    return node


def damage(text: str, rng: random.Random) -> bytes:
    """Text-level damage, sometimes: a cut, a stray byte, a control character, a BOM."""
    data = text.encode("utf-8")
    roll = rng.random()
    if roll < 0.7 or not data:
        return data
    at = rng.randrange(len(data))
    if roll < 0.8:
        return data[:at]
    if roll < 0.9:
        return data[:at] + bytes([rng.choice([0x00, 0x07, 0x1B, 0x80, 0xFF, 0xC3])]) + data[at:]
    return b"\xef\xbb\xbf" + data


# ---------------------------------------------------------------- seeds per target


def _schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris."},
            "days": {"type": "integer", "description": "Days of forecast, 1 to 7.", "minimum": 1},
            "node": {"$ref": "#/$defs/Node"},
        },
        "required": ["city"],
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"prev": {"$ref": "#/$defs/Node"}, "next": {"$ref": "#/$defs/Node"}},
            }
        },
    }


DESCRIPTION = "Get the current weather and a forecast for a city: temperature, wind and rain."


def catalog_seed(fmt: str) -> Any:
    ext = {"category": "weather", "tags": ["weather"], "metadata": {"owner": "team"}}
    if fmt == "yaml":
        return {
            "category": "weather",
            "tools": [
                {
                    "name": "getWeather",
                    "description": DESCRIPTION,
                    "parameters": _schema(),
                    "tags": ["weather"],
                    "metadata": {"since": "x"},
                    "mock": {"temp": 18},
                },
                {"name": "sendEmail", "description": "Send an email to one address.", "parameters": {"to": "string"}},
            ],
            "groups": [{"name": "g", "system_prompt": "Be brief.", "tools": ["sendEmail"], "match": "always"}],
        }
    if fmt == "openai":
        return [
            {
                "type": "function",
                "function": {"name": "getWeather", "description": DESCRIPTION, "parameters": _schema()},
                "x-toolsearch": ext,
            }
        ]
    if fmt == "anthropic":
        return [{"name": "getWeather", "description": DESCRIPTION, "input_schema": _schema(), "x-toolsearch": ext}]
    if fmt == "mcp":
        return {
            "tools": [
                {
                    "name": "getWeather",
                    "description": DESCRIPTION,
                    "inputSchema": _schema(),
                    "_meta": {"x-toolsearch": ext},
                }
            ]
        }
    node = {"$ref": "#/components/schemas/Node"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Weather", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/weather/{city}": {
                "get": {
                    "operationId": "getWeather",
                    "summary": DESCRIPTION,
                    "tags": ["weather"],
                    "parameters": [{"name": "city", "in": "path", "required": True, "schema": {"type": "string"}}],
                },
                "post": {
                    "operationId": "putNode",
                    "requestBody": {"content": {"application/json": {"schema": node}}},
                },
            }
        },
        "components": {
            "schemas": {
                "Node": {"type": "object", "properties": {"value": {"type": "string"}, "prev": node, "next": node}}
            }
        },
    }


CATALOG_FORMATS = ("yaml", "openai", "anthropic", "mcp", "openapi")
SAFE_CATALOG = {
    "tools": [
        {"name": "getWeather", "description": DESCRIPTION, "parameters": {"city": "string"}},
        {"name": "sendEmail", "description": "Send an email to one address.", "parameters": {"to": "string"}},
    ]
}
SCRIPT_SEED = {
    "name": "weather",
    "catalog": "catalog.yaml",
    "policy": "latest",
    "context": {"role": "user"},
    "mocks": {"getWeather": {"temp": 18}},
    "turns": [
        {
            "user": "What is the weather in Paris?",
            "steps": [
                {
                    "expect": {"visible": ["toolSearch"]},
                    "call": {"name": "toolSearch", "arguments": {"query": "weather"}},
                },
                {"call": {"name": "getWeather", "arguments": {"city": "Paris"}, "result": {"temp": 18}}},
                {"say": "It is 18 degrees."},
            ],
        }
    ],
}
REPLAY_SEED = [
    {"role": "system", "content": "Use toolSearch."},
    {"role": "user", "content": "weather in Paris"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "toolSearch", "arguments": '{"query": "weather"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '["getWeather"]'},
    {"role": "assistant", "content": "It is sunny."},
]
QUERIES = '{"id": "q1", "query": "weather in Paris", "relevant": ["getWeather"]}\n'
BASELINE_SEED = {
    "tool": "toolsearch eval",
    "format": 1,
    "catalog": ["catalog.yaml"],
    "ks": [1, 5],
    "rankers": {"bm25f": {"recall@1": 1.0, "recall@5": 1.0, "mrr": 1.0, "queries": 1}},
    "query_set": [{"id": "q1", "query": "weather in Paris", "relevant": ["getWeather"], "subset": None}],
    "ranks": {"bm25f": {"q1": {"getWeather": 1}}},
}
STATE_SEED = {
    "format": "toolsearch.run-state",
    "version": 1,
    "metadata": {"agentsflex.toolsearch.activeToolNames": ["getWeather"], "other": {"x": [1, 2]}},
}


def _catalog_case(rng: random.Random, fmt: str) -> dict[str, Any]:
    as_yaml = fmt == "yaml" or (fmt == "openapi" and rng.random() < 0.5)
    name = "catalog." + ("yaml" if as_yaml else "json")
    data = damage(serialise(mutate(catalog_seed(fmt), rng, as_yaml), as_yaml), rng)
    command = rng.choice(["search", "lint", "convert", "catalog"])
    if command == "search":
        args = ["search", "weather in Paris", "--catalog", name, "--format", "json"]
    elif command == "lint":
        args = ["lint", name, "--format", "json"]
    elif command == "convert":
        args = ["catalog", "convert", "--to", rng.choice(["yaml", "openai", "anthropic", "mcp"]), "--catalog", name]
    else:
        args = ["catalog", "--catalog", name, "--format", rng.choice(["json", "table"])]
    return {"args": args, "files": {name: data}}


def _script_case(rng: random.Random) -> dict[str, Any]:
    script = damage(serialise(mutate(SCRIPT_SEED, rng, True), True), rng)
    fmt = rng.choice(["json", "table"])
    return {
        "args": ["simulate", "s.sim.yaml", "--format", fmt],
        "files": {"s.sim.yaml": script, "catalog.yaml": serialise(SAFE_CATALOG, True).encode()},
    }


def _replay_case(rng: random.Random) -> dict[str, Any]:
    messages = mutate(REPLAY_SEED, rng, False)
    if rng.random() < 0.5:
        text = serialise(messages, False)
        name = "log.json"
    else:
        items = messages if isinstance(messages, list) else [messages]
        text = "\n".join(serialise(m, False).replace("\n", " ") for m in items)
        name = "log.jsonl"
    return {
        "args": ["simulate", "--replay", name, "--catalog", "catalog.yaml", "--format", rng.choice(["json", "table"])],
        "files": {name: damage(text, rng), "catalog.yaml": serialise(SAFE_CATALOG, True).encode()},
    }


def _baseline_case(rng: random.Random) -> dict[str, Any]:
    baseline = damage(serialise(mutate(BASELINE_SEED, rng, False), False), rng)
    args = ["eval", "--queries", "q.jsonl", "--catalog", "catalog.yaml", "--baseline", "run.json"]
    return {
        "args": args + ["--format", rng.choice(["json", "table"])],
        "files": {
            "run.json": baseline,
            "q.jsonl": QUERIES.encode(),
            "catalog.yaml": serialise(SAFE_CATALOG, True).encode(),
        },
    }


def _state_case(rng: random.Random) -> dict[str, Any]:
    state = damage(serialise(mutate(STATE_SEED, rng, False), False), rng)
    script = serialise({"turns": [{"user": "weather in Paris", "steps": [{"say": "ok"}]}]}, True).encode()
    args = ["simulate", "s.sim.yaml", "--catalog", "catalog.yaml", "--mode", "agent", "--state", "state.json"]
    return {
        "args": args + ["--format", rng.choice(["json", "table"])],
        "files": {"state.json": state, "s.sim.yaml": script, "catalog.yaml": serialise(SAFE_CATALOG, True).encode()},
    }


GATEWAY_CONFIG_SEED = {
    "globalShortcut": "",
    "mcpServers": {
        # never a program that exists: a dry run's start fails at once, whatever the mutations made of it
        "time": {"command": "./no-such-server", "args": ["--local-timezone=UTC"], "env": {"KEY": "${env:HOME}"}},
        "docs": {"url": "https://docs.example.invalid/mcp", "headers": {"Authorization": "Bearer x"}},
    },
    "inputs": [{"type": "promptString", "id": "api-key", "password": True}],
    "toolsearch": {
        "ranker": "default",
        "context": {"role": "member"},
        "limits": {"maxResults": 5, "timeout": 2},
        "servers": {
            "time": {
                "hide": ["x"],
                "requires": {"role": ["admin", "member"]},
                "tools": {"get_current_time": {"rename": "now", "aliases": ["clock"], "pinned": True}},
            }
        },
    },
}


def _gateway_config_case(rng: random.Random) -> dict[str, Any]:
    """``serve --config`` (a dry run: nothing it names can start) or ``--import-client`` (never starts
    anything) on a mutated client config."""
    text = damage(serialise(mutate(GATEWAY_CONFIG_SEED, rng, False), False), rng)
    if rng.random() < 0.5:
        args = ["serve", "--config", "gw.json", "--dry-run", "--format", rng.choice(["json", "table"])]
    else:
        out = f"out-{rng.randrange(10**9)}.json"  # a new file each time (an existing one is never written over)
        args = ["serve", "--import-client", "claude-desktop", "--client-config", "gw.json", "--config", out]
    return {"args": args, "files": {"gw.json": text}}


#: Target name -> case generator.
TARGETS: dict[str, Any] = {
    "gateway-config": _gateway_config_case,
    **{f"catalog-{fmt}": (lambda rng, fmt=fmt: _catalog_case(rng, fmt)) for fmt in CATALOG_FORMATS},
    "script": _script_case,
    "replay": _replay_case,
    "baseline": _baseline_case,
    "state": _state_case,
}


# ---------------------------------------------------------------- running and the contract


def run_batch(cases: list[dict[str, Any]], *, pythonpath: str | None = None) -> list[dict[str, Any]]:
    """Run cases in one child process (timeout, address-space limit); one result per case.
    A case the batch did not finish (a hang, a crash of the interpreter) gets ``code`` None."""
    import base64
    import tempfile

    payload = [
        {"args": c["args"], "files": {k: base64.b64encode(v).decode() for k, v in c["files"].items()}} for c in cases
    ]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, env.get("PYTHONPATH")) if p)
    env.pop("TOOLSEARCH_CATALOG", None)
    env["COLUMNS"] = "100"
    with tempfile.TemporaryDirectory() as work:
        env["TOOLSEARCH_CACHE_DIR"] = os.path.join(work, "cache")
        out_path = os.path.join(work, "results.jsonl")
        try:
            subprocess.run(
                [sys.executable, str(Path(__file__).with_name("hostile_driver.py")), out_path, str(MEMORY_LIMIT)],
                input=json.dumps(payload).encode(),
                cwd=work,
                env=env,
                timeout=BATCH_TIMEOUT,
                capture_output=True,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pass
        results = []
        if os.path.exists(out_path):
            with open(out_path, encoding="utf-8") as handle:
                results = [json.loads(line) for line in handle if line.strip()]
    return results + [{"code": None, "stdout": "", "json": False, "stderr": "(did not finish)"}] * (
        len(cases) - len(results)
    )


def violations(case: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """How a result breaks the contract (empty: it keeps it)."""
    problems = []
    code, err = result["code"], result["stderr"]
    if code not in (0, 1, 2):
        problems.append(f"exit code {code}")
    if "Traceback" in err or "internal error" in err:
        problems.append("a traceback or internal error")
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    if len(errors) > 1 or (code == 2 and len(errors) != 1):
        problems.append(f"{len(errors)} error lines with exit code {code}")
    args = case["args"]
    wants_json = "--format" in args and args[args.index("--format") + 1] == "json"
    if "convert" in args:
        wants_json = args[args.index("--to") + 1] != "yaml"
    if code in (0, 1) and wants_json and not result.get("json"):
        problems.append("stdout is not valid JSON")
    # what is shown is escaped (a converted catalog is data for programs, kept as it was)
    if result.get("hidden") and "convert" not in args:
        problems.append(f"a control or invisible character printed raw: {result['hidden']}")
    return problems


def figures(count: int, seed: int, pythonpath: str | None = None) -> dict[str, tuple[int, int]]:
    """Per target: (cases tried, cases that kept the contract), for ``count`` cases from ``seed``."""
    out = {}
    for target, make in TARGETS.items():
        rng = random.Random(f"{seed}-{target}")
        cases = [make(rng) for _ in range(count)]
        results = []
        for start in range(0, count, 25):
            results += run_batch(cases[start : start + 25], pythonpath=pythonpath)
        kept = sum(not violations(c, r) for c, r in zip(cases, results, strict=True))
        out[target] = (count, kept)
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    table = figures(n, seed, os.environ.get("HOSTILE_PYTHONPATH"))
    for name, (tried, kept) in table.items():
        print(f"{name:18} {kept:5}/{tried}")
    tried = sum(t for t, _ in table.values())
    kept = sum(k for _, k in table.values())
    print(f"{'total':18} {kept:5}/{tried} ({100 * kept / tried:.1f}%)")
