"""An app's agent loop is linear: time of every ``ToolSearch.request`` call against the history's length.

The loop of `benchmarks/replay.py`'s synthetic conversation (user asks, toolSearch, names,
getWeather, result, answer: 6 messages an exchange, on the demo catalog) is built up one message
at a time, and ``ToolSearch.request(messages)`` is called for each prefix that ends with a
message the model would answer, as an app's loop does. Two ways are timed in this process:

- ``request``: the library's ``ToolSearch.request`` (an incremental log kept across calls);
- ``whole history``: a snapshot built from scratch from the whole list for every request (what
  ``request`` did before), run on the smaller sizes only (it is quadratic).

The baseline is each way's smallest size, measured in the same run: linear work makes the time
ratio about the size ratio, quadratic its square.

    python -m benchmarks agent-requests                     # 500, 1000, 2000 and 8000 messages
    python -m benchmarks agent-requests --sizes 1000,4000 --whole-up-to 1000
"""

from __future__ import annotations

import sys
import time

from benchmarks import options
from benchmarks.replay import DEMO, conversation


def timed(size: int, whole: bool) -> tuple[float, int]:
    """Seconds for every request of a ``size``-message loop, and how many requests there were."""
    from toolsearch_cli import ToolSearch, load_catalog

    ts = ToolSearch(load_catalog([DEMO]))
    log = conversation(size)
    messages: list[dict[str, object]] = []
    requests = 0
    start = time.perf_counter()
    for message in log:
        messages.append(message)
        if message["role"] in ("user", "tool"):  # the model answers next: one request
            if whole:
                ts.engine.snapshot(list(messages), state=ts.state)
            else:
                ts.request(messages)
            requests += 1
    return time.perf_counter() - start, requests


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--sizes", default="500,1000,2000,8000", help="message counts, smallest first (the baseline)")
    parser.add_argument("--whole-up-to", type=int, default=2000, help="largest size timed the quadratic way")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| way | messages | requests | seconds | time ratio vs baseline | size ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    timed(sizes[0], False)  # warm up: imports, the tokenizer, the index
    for way, whole in (("request", False), ("whole history", True)):
        base: float | None = None
        for size in sizes:
            if whole and size > args.whole_up_to:
                continue
            seconds, requests = timed(size, whole)
            base = base or seconds
            print(f"| {way} | {size} | {requests} | {seconds:.2f} | {seconds / base:.1f}x | {size / sizes[0]:.0f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
