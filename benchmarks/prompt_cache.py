"""Prompt-cache effect of each disclosure policy, against the providers' native deferred loading.

For every shipped scenario (``catalogs/scenarios``), under ``latest`` and ``cumulative``: how many
requests sent the previous request's ``tools`` byte for byte (what ``toolsearch simulate``
reports as ``summary.prompt_cache``), and the same for the native deferred-loading form of the
same requests (Anthropic ``defer_loading`` + ``tool_reference``, :meth:`Request.native_tools`),
whose array is every tool, deferred, and changes only when a tool group starts or stops matching.
Also the mean size of the tools array sent (bytes, compact JSON): the price of a stable prefix.

Run: ``python -m benchmarks prompt-cache`` (from the repository root).
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import options
from toolsearch_cli.agent import Request
from toolsearch_cli.simulate.runner import build_engine, run_script
from toolsearch_cli.simulate.script import load_script
from toolsearch_cli.simulate.settings import merged_settings
from toolsearch_cli.simulate.transcript import prompt_cache
from toolsearch_cli.tokens import tools_json

ROOT = Path(__file__).resolve().parent.parent


def native_reuse(arrays: list[str]) -> tuple[int, int]:
    reused = sum(1 for a, b in zip(arrays, arrays[1:], strict=False) if a == b)
    return reused, len(arrays) - 1


def main() -> None:
    options.parser(__doc__).parse_args()
    print("| scenario | policy | requests | reused | mean tools bytes | reused (native) | mean native bytes |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for path in sorted((ROOT / "catalogs" / "scenarios").glob("*.sim.yaml")):
        script = load_script(path)
        for policy in ("latest", "cumulative"):
            settings = merged_settings(script, {"policy": policy})
            engine = build_engine(settings, script.resident, script.file)
            transcript = run_script(script, settings, engine)
            snaps = [r.snapshot for r in transcript.requests]
            cache = prompt_cache(snaps)
            sent = [len(tools_json(s.tools_for("openai"))) for s in snaps]
            native = [tools_json(Request(s, "anthropic", engine).native_tools()) for s in snaps]
            reused, pairs = native_reuse(native)
            print(
                f"| {path.name} | {policy} | {len(snaps)} | {cache['requests_reusing_tools']} of {pairs} "
                f"| {sum(sent) // len(sent)} | {reused} of {pairs} | {sum(map(len, native)) // len(native)} |"
            )
    print()
    print(json.dumps({"note": "bytes of the tools array (compact JSON); reused = same bytes as the request before"}))


if __name__ == "__main__":
    main()
