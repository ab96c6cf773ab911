"""Which real-world catalogs load, before (the commit before issue 13's loading work) and after.

Usage:
    python benchmarks/load_success.py [--before COMMIT] [--servers 12]

Each input is loaded by both versions of toolsearch in child processes (`load_catalog`, the
library call every command makes): the old code is taken from git (`git archive COMMIT`) into a
temporary folder. Inputs: the Swagger 2.0 Petstore the `jsonschema` package ships, a Responses
request body with OpenAI's hosted tools beside its functions, a catalog in RapidAPI's parameter
types, BFCL-style JSON Lines, LangChain and openai-agents tool objects in a module's TOOLS (when
installed), and 12 live MCP servers (this repository's weather server under 11 aliases plus one
that exits at once), timed.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

from common import ROOT, weather_server_command

BEFORE = "6452135"  # main just before the lenient-loading work of issue 13 (items 1-6)

PROBE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from toolsearch_cli.catalog import load_catalog
start = time.perf_counter()
try:
    catalog = load_catalog(json.loads(sys.argv[2]))
    out = {"ok": True, "tools": len(catalog), "warnings": len(getattr(catalog, "warnings", []))}
except Exception as exc:
    out = {"ok": False, "error": str(exc)[:300]}
out["seconds"] = round(time.perf_counter() - start, 2)
print(json.dumps(out))
"""


def inputs(folder: Path, servers: int) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    try:
        import jsonschema

        shipped = Path(jsonschema.__file__).parent / "benchmarks" / "issue232" / "issue.json"
        petstore = json.loads(shipped.read_text())[0]["tests"][0]["data"]
        (folder / "petstore.json").write_text(json.dumps(petstore, indent=2))
        out.append(("Swagger 2.0 Petstore (shipped in jsonschema)", [str(folder / "petstore.json")]))
    except (ImportError, OSError, LookupError, ValueError):
        pass
    body = {
        "model": "gpt-4.1",
        "tools": [
            {"type": "web_search"},
            {"type": "mcp", "server_label": "docs", "server_url": "https://example.invalid/mcp"},
            {"type": "function", "name": "get_weather", "description": "Weather.", "parameters": {"type": "object"}},
            {"type": "function", "name": "get_time", "description": "Time.", "parameters": {"type": "object"}},
        ],
    }
    (folder / "request.json").write_text(json.dumps(body, indent=2))
    out.append(("Responses request body with web_search and mcp tools", [str(folder / "request.json")]))
    rapid = """\
        tools:
          - name: search_flights
            description: Search flights.
            parameters:
              - {name: date, type: "DATE (YYYY-MM-DD)", description: Departure day, required: true}
              - {name: cabin, type: ENUM, description: Cabin class}
              - {name: near, type: "GEOPOINT (latitude, longitude)", description: Near a point}
          - name: get_rates
            description: Exchange rates.
            parameters:
              - {name: base, type: STRING, description: Base currency, required: true}
              - {name: amount, type: NUMBER, description: Amount}
        """
    (folder / "rapidapi.yaml").write_text(textwrap.dedent(rapid))
    out.append(("RapidAPI parameter types (DATE, ENUM, GEOPOINT, STRING)", [str(folder / "rapidapi.yaml")]))
    function = {
        "name": "calculate_triangle_area",
        "description": "Area of a triangle.",
        "parameters": {"type": "dict", "properties": {"base": {"type": "float"}}, "required": ["base"]},
    }
    lines = [{"id": f"simple_{i}", "question": [], "function": [function]} for i in range(3)]
    (folder / "BFCL_v3_simple.json").write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    out.append(("BFCL JSON Lines (type dict, float)", [str(folder / "BFCL_v3_simple.json")]))
    module = """\
        from langchain_core.tools import tool
        from agents import function_tool

        @tool
        def get_weather(city: str) -> str:
            \"\"\"Weather for a city.\"\"\"
            return city

        @function_tool
        def lookup_order(order_id: str) -> str:
            \"\"\"Look up an order.\"\"\"
            return order_id

        TOOLS = [get_weather, lookup_order]
        """
    try:
        import agents  # noqa: F401
        import langchain_core  # noqa: F401

        (folder / "sdk_tools.py").write_text(textwrap.dedent(module))
        out.append(("LangChain @tool + openai-agents FunctionTool in TOOLS", [str(folder / "sdk_tools.py")]))
    except ImportError:
        pass
    live = [f"w{i:02d}=mcp+stdio:{weather_server_command()}" for i in range(servers - 1)]
    live.insert(servers // 2, f"down=mcp+stdio:{shlex.quote(sys.executable)} -c 'import sys; sys.exit(3)'")
    out.append((f"{servers} live MCP servers, one of them failing", live))
    return out


def probe(code: Path, sources: list[str]) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(code), json.dumps(sources)],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        timeout=600,
    )
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"ok": False, "error": (result.stderr.strip().splitlines() or ["?"])[-1][:110], "seconds": 0}


def shown(found: dict, folder: Path) -> str:
    if not found["ok"]:
        error = found["error"].replace(f"{folder}/", "").replace(sys.executable, "python")
        return f"refused: {error[:70]}…"
    warned = f", {found['warnings']} warnings" if found.get("warnings") else ""
    return f"{found['tools']} tools{warned}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--servers", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolsearch-load-success-") as tmp:
        folder = Path(tmp)
        old = folder / "before"
        old.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.before, "toolsearch_cli"], capture_output=True, check=True
        ).stdout
        archive_path = folder / "before.tar"
        archive_path.write_bytes(archive)
        with tarfile.open(archive_path) as tar:
            tar.extractall(old, filter="data")
        cases = inputs(folder, args.servers)
        print(f"before: {args.before}; after: this checkout\n")
        print("| input | before | after | before s | after s |")
        print("|---|---|---|---:|---:|")
        loaded = {"before": 0, "after": 0}
        for label, sources in cases:
            before = probe(old, sources)
            after = probe(ROOT, sources)
            loaded["before"] += before["ok"]
            loaded["after"] += after["ok"]
            cells = [label, shown(before, folder), shown(after, folder), before["seconds"], after["seconds"]]
            print("| " + " | ".join(str(c) for c in cells) + " |")
        print(f"\nloaded: before {loaded['before']} of {len(cases)}, after {loaded['after']} of {len(cases)}")


if __name__ == "__main__":
    main()
