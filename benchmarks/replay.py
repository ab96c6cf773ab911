"""Replays are linear: time and peak memory of `simulate --replay` against the log's length.

A synthetic conversation on the demo catalog repeats one exchange (user asks, the model calls
toolSearch, gets names, calls getWeather, gets a result, answers: 6 messages); the log of N
messages is replayed the way `toolsearch simulate --replay LOG --format json` does it (load,
engine, replay, the JSON transcript), each size in a fresh child process, under both policies.
The baseline is the smallest size, measured in the same run: linear work makes the time ratio
about the size ratio (10x for 1k -> 10k messages), quadratic work its square (100x).

    python -m benchmarks replay                       # 1000 and 10000 messages
    python -m benchmarks replay --sizes 1000,2000,4000 --policy latest

Target (issue 11 item 19): a 10,000-message log replays in seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import options

ROOT = Path(__file__).resolve().parent.parent
DEMO = str(ROOT / "catalogs" / "demo")
TARGET_SECONDS = 10.0

CHILD = """
import json, resource, sys, time
from toolsearch_cli.simulate import load_conversation, merged_settings, replay
from toolsearch_cli.simulate.runner import build_engine
path, catalog, policy = sys.argv[1:4]
start = time.perf_counter()
messages = load_conversation(path)
settings = merged_settings(None, {"catalog": [catalog], "policy": policy})
engine = build_engine(settings)
transcript = replay(messages, engine, settings, path)
text = json.dumps(transcript.to_dict(), ensure_ascii=False)
seconds = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "requests": len(transcript.requests), "bytes": len(text)}))
"""


def conversation(size: int) -> list[dict[str, object]]:
    """``size`` messages of the repeated weather exchange (ids unique per exchange)."""
    cities = ("Shanghai", "Paris", "Lima", "Oslo", "Cairo", "Perth")
    out: list[dict[str, object]] = [{"role": "system", "content": "Use toolSearch to find tools."}]
    n = 0
    while len(out) < size:
        n += 1
        city = cities[n % len(cities)]
        search = {"query": f"current weather for a city like {city}", "maxResults": 3}
        out += [
            {"role": "user", "content": f"What is the weather in {city} today? (question {n})"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"s{n}",
                        "type": "function",
                        "function": {"name": "toolSearch", "arguments": json.dumps(search)},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"s{n}", "content": '["getWeather","getForecast","getAirQuality"]'},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"w{n}",
                        "type": "function",
                        "function": {"name": "getWeather", "arguments": json.dumps({"city": city})},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": f"w{n}",
                "content": json.dumps({"city": city, "temperature": 10 + n % 20}),
            },
            {"role": "assistant", "content": f"It is {10 + n % 20}°C in {city}."},
        ]
    return out[:size]


def measure(size: int, policy: str, folder: Path) -> dict[str, float]:
    path = folder / f"log-{size}.json"
    path.write_text(json.dumps(conversation(size), ensure_ascii=False), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), DEMO, policy], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(done.stdout)


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="message counts, smallest first (the baseline)")
    parser.add_argument("--policy", default="latest,cumulative")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    ok: bool | None = None  # None: no size of 10,000 or more was measured
    print("| policy | messages | requests | seconds | peak RSS MB | time ratio vs baseline | size ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for policy in args.policy.split(","):
            base: dict[str, float] | None = None
            for size in sizes:
                got = measure(size, policy, Path(tmp))
                base = base or got
                ratio = got["seconds"] / base["seconds"]
                print(
                    f"| {policy} | {size} | {got['requests']} | {got['seconds']:.2f} | {got['peak_mb']:.0f} "
                    f"| {ratio:.1f}x | {size / sizes[0]:.0f}x |"
                )
                if size >= 10000:
                    ok = (ok is not False) and got["seconds"] <= TARGET_SECONDS
    verdict = "not measured (no size of 10,000)" if ok is None else "met" if ok else "NOT met"
    print(f"\ntarget: 10,000 messages within {TARGET_SECONDS:g} s: {verdict}")
    return 0 if ok is not False else 1


if __name__ == "__main__":
    sys.exit(main())
